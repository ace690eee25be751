/**
 * What a proxy's Envoy says about its control plane on its admin API: the Envoy side of
 * `mock-istiod status` (`status/status-report.ts`).
 *
 * The admin address (`admin-address.ts`) comes from `--admin` or from the proxy's node metadata:
 * `ENVOY_ADMIN_ADDRESS` (mock-istiod's key: set `ISTIO_META_ENVOY_ADMIN_ADDRESS=host:port`
 * in the pod's environment, or `metadata.ENVOY_ADMIN_ADDRESS` in the bootstrap), else
 * Istio's own `PROXY_CONFIG.proxyAdminPort` on 127.0.0.1 (the admin API of a sidecar only
 * listens on loopback, so that works when the mock runs on the proxy's host). Envoy's
 * `/server_info` names its node, so an address that belongs to another proxy is caught.
 *
 * The state shown is `/server_info`'s, which is current; the `server.state` stat lags up to
 * a stats flush and reads 0 (LIVE) before the first one.
 */
import { RESOURCE_TYPES } from '../core/types/registry.js';
import { reasonOf } from '../util/reason.js';
import { EnvoyAdminClient, type StatValue } from './admin-client.js';
import type { AdminAddress, AdminSource } from './admin-address.js';

/** The per-type subscription stats shown beside the mock's view. */
const TYPE_STATS = ['update_success', 'update_rejected', 'version_text'];

/** The stats shown beside the mock's view, by Envoy's names. */
export const ENVOY_STATS: readonly string[] = [
  'control_plane.connected_state',
  ...RESOURCE_TYPES.flatMap((t) =>
    t.envoyStats ? TYPE_STATS.map((s) => `${t.envoyStats}.${s}`) : [],
  ),
];

export interface EnvoySide {
  admin: string;
  source: AdminSource;
  reachable: boolean;
  /** Why the admin API could not be read. */
  error?: string;
  /** `node.id` from `/server_info`. */
  nodeId?: string;
  /** `state` from `/server_info`: LIVE, PRE_INITIALIZING, INITIALIZING, DRAINING. */
  state?: string;
  stats: Partial<Record<string, StatValue>>;
}

const STATS_FILTER = `^(${ENVOY_STATS.map((s) => s.replace(/\./g, '\\.')).join('|')})$`;

/** Reads `/server_info` and the stats above; an unreachable Envoy is reported, not thrown. */
export async function readEnvoy(address: AdminAddress, timeoutMs = 2_000): Promise<EnvoySide> {
  const side: EnvoySide = {
    admin: address.url,
    source: address.source,
    reachable: false,
    stats: {},
  };
  const client = new EnvoyAdminClient(address.url, { requestTimeoutMs: timeoutMs });
  try {
    const info = JSON.parse((await client.get('/server_info')).body) as {
      state?: string;
      node?: { id?: string };
    };
    const query = new URLSearchParams({ format: 'json', filter: STATS_FILTER });
    const stats = JSON.parse((await client.get(`/stats?${query.toString()}`)).body) as {
      stats?: { name?: string; value?: unknown }[];
    };
    side.reachable = true;
    side.state = info.state;
    side.nodeId = info.node?.id;
    for (const { name, value } of stats.stats ?? []) {
      if (
        name !== undefined &&
        ENVOY_STATS.includes(name) &&
        (typeof value === 'number' || typeof value === 'string')
      ) {
        side.stats[name] = value;
      }
    }
  } catch (err) {
    side.error = err instanceof SyntaxError ? 'not an Envoy admin API (no JSON)' : reasonOf(err);
  }
  return side;
}
