/**
 * What each injection number becomes: for the chosen proxy (or two, to compare), the mock
 * reads its Envoy's config_dump through the admin address it knows (`GET /ui/explain`) and
 * the page shows one row per value: `istio-init -p 15001`, the listener or cluster it became,
 * and a note. The notes are `mock-istiod explain`'s own text, in English.
 */
import { useState } from 'preact/hooks';
import type { ExplainAnswer, ExplainRowInfo } from '../../../src/api/explain-answers.js';
import { control } from '../api.js';
import { useT, type Translate } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import type { ProxyRow } from '../model/state.js';

const WHAT: Readonly<Record<string, MessageKey>> = {
  'outbound capture': 'explain.what.outbound',
  'inbound capture': 'explain.what.inbound',
  'UID excluded': 'explain.what.uid',
  mode: 'explain.what.mode',
  'unknown destination': 'explain.what.unknown',
};

/** `what` in the page's language: `inbound 15021 excluded` → its message with the port. */
export function whatLabel(t: Translate, what: string): string {
  const key = WHAT[what];
  if (key) return t(key);
  const excluded = /^inbound (\d+) excluded$/.exec(what);
  return excluded ? t('explain.what.excluded', { port: excluded[1] ?? '' }) : what;
}

/** The proxies asked for: those chosen that are still listed, else the first one. */
function asked(chosen: readonly string[], proxies: readonly ProxyRow[]): string[] {
  const listed = chosen.filter((id) => proxies.some((p) => p.nodeId === id && !p.gone));
  const first = proxies.find((p) => !p.gone)?.nodeId;
  return listed.length > 0 ? listed : first ? [first] : [];
}

export function Explain({ proxies }: { proxies: ProxyRow[] }) {
  const t = useT();
  const [chosen, setChosen] = useState<string[]>([]);
  const [answer, setAnswer] = useState<ExplainAnswer | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [fromInject, setFromInject] = useState(false);
  const selected = asked(chosen, proxies);
  const toggle = (id: string, on: boolean) =>
    setChosen(
      on ? [...selected.filter((s) => s !== id), id].slice(-2) : selected.filter((s) => s !== id),
    );
  const explain = async () => {
    setBusy(true);
    try {
      setAnswer(
        await control.call('explain', {
          proxy: selected,
          ...(fromInject && { values: 'inject' as const }),
        }),
      );
      setError('');
    } catch (err) {
      setAnswer(undefined);
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="explain-title" data-testid="explain">
      <h2 id="explain-title">{t('explain.title')}</h2>
      <p class="muted small">{t('explain.hint')}</p>
      {proxies.length === 0 ? (
        <p>{t('pods.none')}</p>
      ) : (
        <div class="field-row">
          <fieldset class="explain-pick">
            <legend>{t('explain.pick')}</legend>
            {proxies
              .filter((p) => !p.gone)
              .map((p) => (
                <label key={p.nodeId} class="explain-proxy">
                  <input
                    type="checkbox"
                    data-testid="explain-proxy"
                    value={p.nodeId}
                    checked={selected.includes(p.nodeId)}
                    onChange={(event) =>
                      toggle(p.nodeId, (event.target as HTMLInputElement).checked)
                    }
                  />{' '}
                  {p.name}
                </label>
              ))}
          </fieldset>
          <label class="explain-proxy">
            <input
              type="checkbox"
              data-testid="explain-from-inject"
              checked={fromInject}
              onChange={(event) => setFromInject((event.target as HTMLInputElement).checked)}
            />{' '}
            {t('explain.fromInject')}
          </label>
          <wa-button
            data-testid="explain-button"
            disabled={busy || selected.length === 0}
            onClick={() => void explain()}
          >
            {t(selected.length > 1 ? 'explain.compare' : 'explain.run')}
          </wa-button>
        </div>
      )}
      <p role="status" aria-live="polite" class="outcome error" data-testid="explain-error">
        {error}
      </p>
      {answer && (
        <p class="muted small" data-testid="explain-values" data-source={answer.values.source}>
          {t(answer.values.source === 'inject' ? 'explain.values.inject' : 'explain.values.seed')}
          {answer.values.differences.map((d) => (
            <span key={d} class="mono">
              {' '}
              {d}
            </span>
          ))}
        </p>
      )}
      {answer?.configurations.map((c) => (
        <div key={c.admin} data-testid="explain-config" data-node-id={c.nodeId}>
          <h3>
            {c.label} <span class="muted small mono">{c.admin}</span>
          </h3>
          <Rows rows={c.rows} t={t} />
        </div>
      ))}
      {answer && answer.differences.length > 0 && (
        <>
          <h3>{t('explain.differences')}</h3>
          <ul data-testid="explain-differences">
            {answer.differences.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Rows({ rows, t }: { rows: ExplainRowInfo[]; t: Translate }) {
  return (
    <table class="types explain">
      <thead>
        <tr>
          <th scope="col">{t('explain.value')}</th>
          <th scope="col">{t('explain.object')}</th>
          <th scope="col">{t('explain.note')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.what} data-testid="explain-row" data-what={r.what}>
            <th scope="row">
              <span class="mono">{r.value}</span>
              <div class="muted small">{whatLabel(t, r.what)}</div>
            </th>
            <td class="mono" data-testid="explain-objects">
              {r.objects.length > 0 ? r.objects.join(', ') : t('explain.noObject')}
            </td>
            <td class="small" data-testid="explain-note" lang="en">
              {r.becomes}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
