/**
 * What `mock-istiod proxy-status` prints, from `/debug/syncz`: istioctl's per-type table
 * (`NAME CLUSTER CDS LDS EDS RDS ECDS ISTIOD VERSION`, cells such as `SYNCED (2m)`,
 * `NOT SENT`, `STALE (5s)`, `ERROR (1s)`, `IGNORED` for a type never asked for), and
 * istioctl's `-o json` (a DiscoveryResponse of `ClientConfig`s). Pure functions of the data
 * and the current time.
 */
import { rankedTypes, shortTypeName } from '../../core/types/registry.js';
import { CLIENT_CONFIG_TYPE } from '../../xds/type-urls.js';
import {
  clientConfigJson,
  configStatus,
  sentAt,
  type ResourceStatus,
  type SyncStatusJson,
} from '../../debug/client-config.js';
import { humanDuration } from './human-duration.js';
import { formatTable } from './tabwriter.js';

export type { SyncStatusJson } from '../../debug/client-config.js';

/** istioctl's type columns, in its order: CDS LDS EDS RDS ECDS. */
export const TABLE_TYPES = rankedTypes((t) => t.proxyStatusColumn).map((t) => t.typeUrl);

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

/**
 * Under the table, each relayed proxy's istiod (`serve --relay`): whether its upstream stream
 * is open, and per type the version istiod last sent beside the one the proxy last ACKed,
 * marked `behind` while they differ (a fault withholds or replaces istiod's response, or it
 * is on its way).
 */
export function upstreamLines(statuses: readonly SyncStatusJson[]): string[] {
  return statuses.flatMap((s) => {
    if (!s.upstream) return [];
    const { address, connected, types } = s.upstream;
    const state = connected ? 'connected' : 'lost (the relay holds the stream)';
    const rows = Object.entries(types)
      .sort(([a], [b]) => typeRank(a) - typeRank(b) || (a < b ? -1 : 1))
      .map(([typeUrl, { received, delivered }]) => [
        `  ${shortTypeName(typeUrl)}`,
        `istiod sent ${received}`,
        `ACKed ${delivered ?? '(nothing)'}`,
        delivered === received ? '' : 'behind',
      ]);
    const table = formatTable(rows, 3)
      .split('\n')
      .map((line) => line.trimEnd())
      .filter(Boolean);
    return [`${s.proxy ?? ''} relayed from istiod ${address}: ${state}`, ...table];
  });
}

function typeRank(typeUrl: string): number {
  const rank = TABLE_TYPES.indexOf(typeUrl);
  return rank < 0 ? TABLE_TYPES.length : rank;
}

/** istioctl's `-o json`: a DiscoveryResponse whose resources are CSDS `ClientConfig`s. */
export function proxyStatusJson(statuses: readonly SyncStatusJson[]): Record<string, unknown> {
  return {
    resources: statuses.map((s) => clientConfigJson(s)),
    typeUrl: CLIENT_CONFIG_TYPE,
  };
}
