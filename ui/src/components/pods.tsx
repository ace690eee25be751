/**
 * Each connected proxy as a pod: READY as kubectl shows it (or `?`, see model/ready.ts), Envoy's `server.state` and
 * `/ready`, and per resource type the proxy-status cell and the version Envoy ACKed. Two or
 * more proxies sit side by side. A proxyless gRPC client has no Envoy to ask: its card says so,
 * and shows the names it asked for beside each type instead.
 */
import type { UiProxy, UiSyncStatus, UiTypeStatus } from '../../../src/live/ui-events.js';
import { readyCell } from '../model/ready.js';
import type { ProxyRow } from '../model/state.js';
import { useT } from '../i18n.js';

const SYNC_VARIANT: Record<UiSyncStatus, 'success' | 'warning' | 'danger' | 'neutral'> = {
  SYNCED: 'success',
  STALE: 'warning',
  'NOT SENT': 'neutral',
  ERROR: 'danger',
  IGNORED: 'neutral',
};

export function Pods({ proxies, columns }: { proxies: ProxyRow[]; columns: string[] }) {
  const t = useT();
  return (
    <section class="panel" aria-labelledby="pods-title">
      <h2 id="pods-title">{t('pods.title')}</h2>
      {proxies.length === 0 ? (
        <p data-testid="pods-empty">{t('pods.none')}</p>
      ) : (
        <div class="pods">
          {proxies.map((proxy) => (
            <Pod key={proxy.connectionId} proxy={proxy} columns={columns} />
          ))}
        </div>
      )}
    </section>
  );
}

/** The types to show: istioctl's columns the proxy subscribed to, then any others. */
function rows(proxy: UiProxy, columns: string[]): UiTypeStatus[] {
  const byType = new Map(proxy.types.map((s) => [s.type, s]));
  const inColumns = columns.flatMap((c) => byType.get(c) ?? []);
  return [...inColumns, ...proxy.types.filter((s) => !columns.includes(s.type))].filter(
    (s) => s.status !== 'IGNORED',
  );
}

function Pod({ proxy, columns }: { proxy: ProxyRow; columns: string[] }) {
  const t = useT();
  const { envoy } = proxy;
  const ready = readyCell(proxy);
  const readyHint = [t(`pod.readyWhy.${ready.reason}`), ready.detail].filter(Boolean).join('\n');
  return (
    <article
      class={proxy.gone ? 'pod gone' : 'pod'}
      data-testid="pod"
      data-node-id={proxy.nodeId}
      data-gone={proxy.gone ? 'true' : undefined}
      aria-label={proxy.proxy}
    >
      <header class="pod-head">
        <h3 data-testid="pod-name">{proxy.name}</h3>
        <span class="muted">{proxy.namespace}</span>
        {proxy.gone && (
          <wa-tag size="s" variant="danger" data-testid="pod-gone" title={t('pod.goneHint')}>
            {t('pod.gone')}
          </wa-tag>
        )}
        {proxy.proxyless ? (
          <wa-tag
            size="s"
            variant="brand"
            class="pod-ready"
            data-testid="pod-proxyless"
            title={t('pod.proxylessHint')}
          >
            {t('pod.proxyless')}
          </wa-tag>
        ) : (
          <span class="pod-ready">
            <span class="muted">{t('pod.ready')}</span>{' '}
            <wa-badge
              variant={ready.variant}
              data-testid="pod-ready"
              data-reason={ready.reason}
              title={readyHint}
            >
              {ready.text}
            </wa-badge>
          </span>
        )}
      </header>
      <dl class="pod-facts">
        {proxy.proxyless ? (
          <>
            <dt>{t('pod.xdsClient')}</dt>
            <dd data-testid="xds-client">{t('pod.grpcClient')}</dd>
          </>
        ) : (
          <>
            <dt>{t('pod.serverState')}</dt>
            <dd data-testid="server-state" class="mono">
              {envoy.state ?? (envoy.admin ? '…' : t('pod.adminUnknown'))}
            </dd>
            <dt>{t('pod.envoyReady')}</dt>
            <dd data-testid="envoy-ready" class="mono">
              {envoy.ready ? `${envoy.ready.status} ${envoy.ready.body.trim()}` : '—'}
            </dd>
          </>
        )}
        {proxy.upstream && (
          <>
            <dt>{t('pod.relayedTo')}</dt>
            <dd
              data-testid="relay-upstream"
              data-connected={String(proxy.upstream.connected)}
              class="mono small"
            >
              {proxy.upstream.address} —{' '}
              {t(proxy.upstream.connected ? 'pod.upstreamConnected' : 'pod.upstreamLost')}
            </dd>
          </>
        )}
        <dt>{t('pod.node')}</dt>
        <dd class="mono small">{proxy.nodeId}</dd>
      </dl>
      <table class="types">
        <thead>
          <tr>
            <th scope="col">{t('pod.type')}</th>
            <th scope="col">{t('pod.sync')}</th>
            <th scope="col">{t('pod.acked')}</th>
            {proxy.proxyless && <th scope="col">{t('pod.names')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows(proxy, columns).map((s) => (
            <tr key={s.typeUrl} data-testid={`type-${s.type}`}>
              <th scope="row">{s.type}</th>
              <td>
                <wa-badge variant={SYNC_VARIANT[s.status]} data-testid="sync-status">
                  {s.status}
                </wa-badge>
                {s.nack && <div class="nack-text">{s.nack.message}</div>}
              </td>
              <td class="mono">{s.ackedVersion ?? '—'}</td>
              {proxy.proxyless && (
                <td class="mono small" data-testid="type-names">
                  {s.names === '*' ? '*' : s.names.join(' ')}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
