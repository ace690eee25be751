/**
 * CSDS's `ClientConfig` for one proxy, built from its `/debug/syncz` entry (istiod's
 * `SyncStatus`): the shape istiod's `istio.io/debug/syncz` answers over ADS and
 * `istioctl proxy-status -o json` prints (pilot/pkg/xds/statusgen.go). One builder serves
 * both the ADS debug type (debug/debug-xds.ts) and `mock-istiod proxy-status -o json`.
 * Field names are proto3 JSON's lowerCamelCase, as istioctl prints them; the encoder takes
 * them too.
 */
import { CLIENT_CONFIG_TYPE } from '../xds/type-urls.js';

/** One entry of `/debug/syncz` (istiod's `SyncStatus`), as far as a ClientConfig needs it. */
export interface SyncStatusJson {
  cluster_id?: string;
  proxy?: string;
  istio_version?: string;
  resources?: Record<
    string,
    { sent?: string; acked?: string; sentTime?: string; lastError?: string }
  >;
  /** A relayed proxy's istiod (`serve --relay`): the mock's addition to istiod's fields. */
  upstream?: {
    address: string;
    connected: boolean;
    types: Record<string, { received: string; delivered?: string }>;
  };
}

export type ResourceStatus = NonNullable<SyncStatusJson['resources']>[string];

/** CSDS's `ConfigStatus` names, which istioctl's JSON uses. */
export type ConfigStatus = 'SYNCED' | 'NOT_SENT' | 'STALE' | 'ERROR';

const GO_ZERO_TIME_PREFIX = '0001-01-01';

/** istiod's `debugSyncStatus`. */
export function configStatus(resource: ResourceStatus): ConfigStatus {
  if (resource.lastError) return 'ERROR';
  if (!resource.sent) return 'NOT_SENT';
  return resource.acked === resource.sent ? 'SYNCED' : 'STALE';
}

/** When the type's last response went out (ms), or undefined when never. */
export function sentAt(resource: ResourceStatus): number | undefined {
  const time = resource.sentTime;
  if (!time || time.startsWith(GO_ZERO_TIME_PREFIX)) return undefined;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? undefined : ms;
}

function genericXdsConfig(typeUrl: string, resource: ResourceStatus): Record<string, unknown> {
  const status = configStatus(resource);
  const at = sentAt(resource);
  const lastUpdated = at === undefined ? undefined : new Date(at).toISOString();
  return {
    typeUrl,
    configStatus: status,
    ...(lastUpdated && status !== 'NOT_SENT' && { lastUpdated }),
    ...(resource.lastError && {
      errorState: { lastUpdateAttempt: lastUpdated, details: resource.lastError },
    }),
  };
}

/**
 * One proxy's ClientConfig: the node (id `<pod>.<namespace>`, metadata `CLUSTER_ID`,
 * `ISTIO_VERSION` and, when known, `NAMESPACE`) and one entry per watched type, sorted by URL.
 */
export function clientConfigJson(status: SyncStatusJson, namespace = ''): Record<string, unknown> {
  const metadata: Record<string, string> = {
    CLUSTER_ID: status.cluster_id ?? '',
    ISTIO_VERSION: status.istio_version ?? '',
  };
  if (namespace !== '') metadata.NAMESPACE = namespace;
  return {
    '@type': CLIENT_CONFIG_TYPE,
    node: { id: status.proxy ?? '', metadata },
    genericXdsConfigs: Object.entries(status.resources ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([typeUrl, resource]) => genericXdsConfig(typeUrl, resource)),
  };
}
