/**
 * What `mock-istiod proxy-status` prints, from `/debug/syncz`: istioctl's per-type table
 * (`NAME CLUSTER CDS LDS EDS RDS ECDS ISTIOD VERSION`, cells such as `SYNCED (2m)`,
 * `NOT SENT`, `STALE (5s)`, `ERROR (1s)`, `IGNORED` for a type never asked for), and
 * istioctl's `-o json` (a DiscoveryResponse of `ClientConfig`s). Pure functions of the data
 * and the current time.
 */
import { rankedTypes, shortTypeName } from '../core/types/registry.js';
import { CLIENT_CONFIG_TYPE } from '../xds/type-urls.js';
import { humanDuration } from './human-duration.js';
import { formatTable } from './tabwriter.js';

/** One entry of `/debug/syncz` (istiod's `SyncStatus`), as far as the table needs it. */
export interface SyncStatusJson {
  cluster_id?: string;
  proxy?: string;
  istio_version?: string;
  resources?: Record<
    string,
    { sent?: string; acked?: string; sentTime?: string; lastError?: string }
  >;
}

type ResourceStatus = NonNullable<SyncStatusJson['resources']>[string];

/** CSDS's `ConfigStatus` names, which istioctl's JSON uses. */
export type ConfigStatus = 'SYNCED' | 'NOT_SENT' | 'STALE' | 'ERROR';

/** istioctl's type columns, in its order: CDS LDS EDS RDS ECDS. */
export const TABLE_TYPES = rankedTypes((t) => t.proxyStatusColumn).map((t) => t.typeUrl);

const GO_ZERO_TIME_PREFIX = '0001-01-01';

/** istiod's `debugSyncStatus`. */
export function configStatus(resource: ResourceStatus): ConfigStatus {
  if (resource.lastError) return 'ERROR';
  if (!resource.sent) return 'NOT_SENT';
  return resource.acked === resource.sent ? 'SYNCED' : 'STALE';
}

function sentAt(resource: ResourceStatus): number | undefined {
  const time = resource.sentTime;
  if (!time || time.startsWith(GO_ZERO_TIME_PREFIX)) return undefined;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? undefined : ms;
}

/** istioctl's `formatStatus`: the status, and how long ago the last response went out. */
export function statusCell(resource: ResourceStatus | undefined, nowMs: number): string {
  if (!resource) return 'IGNORED';
  const status = configStatus(resource);
  if (status === 'NOT_SENT') return 'NOT SENT';
  const at = sentAt(resource);
  return at === undefined ? status : `${status} (${humanDuration(nowMs - at)})`;
}

/** istioctl sorts proxies by id. */
export function sortedProxies(statuses: readonly SyncStatusJson[], filter = ''): SyncStatusJson[] {
  return statuses
    .filter((s) => (s.proxy ?? '').includes(filter))
    .sort((a, b) => ((a.proxy ?? '') < (b.proxy ?? '') ? -1 : 1));
}

export function proxyStatusTable(
  statuses: readonly SyncStatusJson[],
  istiod: string,
  nowMs: number,
): string {
  const header = ['NAME', 'CLUSTER', ...TABLE_TYPES.map(shortTypeName), 'ISTIOD', 'VERSION'];
  const rows = statuses.map((s) => [
    s.proxy ?? '',
    s.cluster_id ?? '',
    ...TABLE_TYPES.map((typeUrl) => statusCell(s.resources?.[typeUrl], nowMs)),
    istiod,
    s.istio_version ?? '',
  ]);
  return formatTable([header, ...rows]);
}

/** Envoy's rejection messages, one line per rejected type, to print under the table. */
export function errorLines(statuses: readonly SyncStatusJson[]): string[] {
  return statuses.flatMap((s) =>
    Object.entries(s.resources ?? {}).flatMap(([typeUrl, resource]) =>
      resource.lastError
        ? [`${s.proxy ?? ''} ${shortTypeName(typeUrl)} rejected: ${resource.lastError.trim()}`]
        : [],
    ),
  );
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

/** istioctl's `-o json`: a DiscoveryResponse whose resources are CSDS `ClientConfig`s. */
export function proxyStatusJson(statuses: readonly SyncStatusJson[]): Record<string, unknown> {
  return {
    resources: statuses.map((s) => ({
      '@type': CLIENT_CONFIG_TYPE,
      node: {
        id: s.proxy ?? '',
        metadata: { CLUSTER_ID: s.cluster_id ?? '', ISTIO_VERSION: s.istio_version ?? '' },
      },
      genericXdsConfigs: Object.entries(s.resources ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([typeUrl, resource]) => genericXdsConfig(typeUrl, resource)),
    })),
    typeUrl: CLIENT_CONFIG_TYPE,
  };
}
