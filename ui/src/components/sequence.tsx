/**
 * The ADS exchange as a sequence diagram, newest at the bottom: Envoy on the left, the mock on
 * the right. Requests, ACKs and NACKs point right; responses point left. A NACK carries Envoy's
 * own error text, in red. A request that arrived while responses were withheld shows as
 * waiting until a response of its type follows on its stream. Fault steps are marked across
 * the diagram.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { UiJournalEntry, UiProxy } from '../../../src/live/ui-events.js';
import { useT, type Translate } from '../i18n.js';
import { stillWaiting } from '../model/exchange.js';
import type { ExchangeItem } from '../model/state.js';

export function Sequence({ items, proxies }: { items: ExchangeItem[]; proxies: UiProxy[] }) {
  const t = useT();
  const list = useRef<HTMLOListElement>(null);
  const waiting = stillWaiting(items);
  const names = new Map(proxies.map((p) => [p.connectionId, p.name]));
  const several = new Set(items.flatMap((i) => ('entry' in i ? [i.entry.nodeId] : []))).size > 1;

  // Keep the newest row in view, as a terminal does, unless the reader scrolled up.
  useEffect(() => {
    const element = list.current;
    if (element && element.scrollHeight - element.scrollTop - element.clientHeight < 120)
      element.scrollTop = element.scrollHeight;
  }, [items]);

  return (
    <section class="panel" aria-labelledby="seq-title">
      <h2 id="seq-title">{t('seq.title')}</h2>
      <div class="lanes" aria-hidden="true">
        <span>{t('seq.envoy')}</span>
        <span>{t('seq.istiod')}</span>
      </div>
      {items.length === 0 ? (
        <p>{t('seq.none')}</p>
      ) : (
        <ol class="sequence" ref={list} data-testid="sequence">
          {items.map((item) =>
            'marker' in item ? (
              <li key={item.key} class="seq-row fault" data-testid="seq-fault">
                <wa-tag variant="warning" size="s">
                  {t('seq.fault')}
                </wa-tag>{' '}
                {item.marker.fault.id} ({item.marker.fault.scenario}): {item.marker.action}
              </li>
            ) : (
              <Row
                key={item.key}
                entry={item.entry}
                t={t}
                waiting={waiting.has(item.entry.seq)}
                who={several ? names.get(item.entry.connectionId ?? '') : undefined}
              />
            ),
          )}
        </ol>
      )}
    </section>
  );
}

function label(entry: UiJournalEntry, t: Translate): string {
  if (entry.kind === 'ack') return t('seq.ack');
  if (entry.kind === 'nack') return t('seq.nack');
  if (entry.kind === 'response') return t('seq.response');
  if (entry.kind === 'open') return t('seq.connect');
  if (entry.kind === 'close' || entry.kind === 'rejected') return t('seq.close');
  return `${t('seq.request')} (${entry.kind})`;
}

function details(entry: UiJournalEntry, t: Translate): string {
  const parts: string[] = [];
  if (entry.version !== undefined) parts.push(`${t('seq.version')} ${entry.version || '""'}`);
  if (entry.nonce) parts.push(`${t('seq.nonce')} ${entry.nonce}`);
  if (entry.resources !== undefined) parts.push(t('seq.resources', { count: entry.resources }));
  if (entry.names !== undefined && entry.direction === 'request')
    parts.push(entry.names === '*' ? '*' : entry.names.join(', ') || '*');
  if (entry.reason) parts.push(entry.reason);
  return parts.join(' · ');
}

interface RowProps {
  entry: UiJournalEntry;
  t: Translate;
  waiting: boolean;
  who: string | undefined;
}

function Row({ entry, t, waiting, who }: RowProps) {
  const direction =
    entry.direction === 'response' ? 'left' : entry.direction === 'request' ? 'right' : 'none';
  const time = entry.time.slice(11, 23);
  return (
    <li
      class={`seq-row ${direction} kind-${entry.kind}${waiting ? ' waiting' : ''}`}
      data-testid={`seq-${entry.kind}`}
      data-type={entry.type}
    >
      <span class="seq-time mono">{time}</span>
      <span class="seq-arrow">
        <span class="seq-label">
          {who && <span class="muted">{who} </span>}
          {entry.type && <strong>{entry.type} </strong>}
          {label(entry, t)}
          {waiting && (
            <wa-tag variant="warning" size="s" data-testid="seq-waiting">
              {t('seq.waiting')}
            </wa-tag>
          )}
        </span>
        <span class="seq-details mono">{details(entry, t)}</span>
        {entry.errorDetail && (
          <span class="nack-text" data-testid="nack-message">
            {entry.errorDetail.message}
          </span>
        )}
      </span>
    </li>
  );
}
