/**
 * The few facts of an Envoy `/config_dump` that the interception values become: each
 * listener's address, direction and how it reads the original destination, the clusters its
 * chains send to, and each cluster's discovery type. Read by the proto field names Envoy
 * prints (snake_case), static and dynamic entries alike.
 */
import { isObject } from '../util/guards.js';

type Json = Record<string, unknown>;

export interface ListenerFact {
  name: string;
  address: string;
  port: number;
  direction: string;
  /** Dynamic (over xDS) or static (the bootstrap's). */
  origin: 'dynamic' | 'static';
  useOriginalDst: boolean;
  /** Has the `original_dst` listener filter (virtualInbound's way). */
  originalDstFilter: boolean;
  transparent: boolean;
  bindToPort: boolean;
  /** Clusters its chains send to, first the default chain's. */
  clusters: string[];
  /** Where connections no chain match selects go: the default chain's, else a match-less chain's. */
  defaultClusters: string[];
  /** Clusters of a chain matching the listener's own port as destination (istiod's loop guard). */
  loopClusters: string[];
}

export interface DumpFacts {
  listeners: ListenerFact[];
  /** Cluster name → discovery type (`STATIC`, `EDS`, `ORIGINAL_DST`, …). */
  clusters: Map<string, string>;
}

const ADMIN = 'type.googleapis.com/envoy.admin.v3.';

export function readDumpFacts(dump: unknown): DumpFacts {
  const configs = isObject(dump) && Array.isArray(dump.configs) ? dump.configs : [];
  const section = (name: string): Json =>
    (configs.find((c) => isObject(c) && c['@type'] === ADMIN + name) as Json | undefined) ?? {};
  const routes = new Map<string, Json>();
  const routeDump = section('RoutesConfigDump');
  for (const entry of [
    ...list(routeDump.static_route_configs),
    ...list(routeDump.dynamic_route_configs),
  ]) {
    const config = entry.route_config;
    if (isObject(config) && typeof config.name === 'string') routes.set(config.name, config);
  }
  const clusterDump = section('ClustersConfigDump');
  const clusters = new Map<string, string>();
  for (const entry of [
    ...list(clusterDump.static_clusters),
    ...list(clusterDump.dynamic_active_clusters),
  ]) {
    const c = entry.cluster;
    if (isObject(c) && typeof c.name === 'string') clusters.set(c.name, clusterType(c));
  }
  const listenerDump = section('ListenersConfigDump');
  const listeners = [
    ...list(listenerDump.static_listeners).map((e) => [e.listener, 'static'] as const),
    ...list(listenerDump.dynamic_listeners).map(
      (e) => [(isObject(e.active_state) ? e.active_state : {}).listener, 'dynamic'] as const,
    ),
  ].flatMap(([l, origin]) => (isObject(l) ? [listenerFact(l, origin, routes)] : []));
  return { listeners, clusters };
}

function str(value: unknown, otherwise = ''): string {
  return typeof value === 'string' ? value : otherwise;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function clusterType(c: Json): string {
  if (typeof c.type === 'string') return c.type;
  if (isObject(c.cluster_type) && typeof c.cluster_type.name === 'string')
    return c.cluster_type.name;
  return 'EDS' in c ? 'EDS' : 'STATIC';
}

function listenerFact(
  l: Json,
  origin: 'dynamic' | 'static',
  routes: Map<string, Json>,
): ListenerFact {
  const socket =
    isObject(l.address) && isObject(l.address.socket_address) ? l.address.socket_address : {};
  const filters = list(l.listener_filters).map((f) => str(f.name));
  const port = Number(socket.port_value ?? 0);
  const chains = list(l.filter_chains);
  const matchless = chains.filter(
    (c) => !isObject(c.filter_chain_match) || Object.keys(c.filter_chain_match).length === 0,
  );
  const defaultClusters = isObject(l.default_filter_chain)
    ? targets(l.default_filter_chain, routes)
    : matchless.flatMap((c) => targets(c, routes));
  const loopClusters = chains
    .filter((c) => isObject(c.filter_chain_match) && c.filter_chain_match.destination_port === port)
    .flatMap((c) => targets(c, routes));
  const chainClusters = chains.flatMap((c) => targets(c, routes));
  return {
    name: str(l.name),
    address: str(socket.address),
    port,
    direction: str(l.traffic_direction, 'UNSPECIFIED'),
    origin,
    useOriginalDst: l.use_original_dst === true,
    originalDstFilter: filters.some((n) => n.includes('original_dst')),
    transparent: l.transparent === true,
    bindToPort: l.bind_to_port !== false,
    clusters: [...new Set([...defaultClusters, ...chainClusters])],
    defaultClusters,
    loopClusters,
  };
}

/** Every `cluster` a chain's filters name: tcp_proxy's, and the routes' (inline or by RDS). */
function targets(chain: Json, routes: Map<string, Json>): string[] {
  return list(chain.filters).flatMap((f) => {
    const typed = isObject(f.typed_config) ? f.typed_config : {};
    if (typeof typed.cluster === 'string') return [typed.cluster];
    const rds = isObject(typed.rds) ? typed.rds.route_config_name : undefined;
    const config = typeof rds === 'string' ? routes.get(rds) : typed.route_config;
    return isObject(config) ? routeClusters(config) : [];
  });
}

function routeClusters(config: Json): string[] {
  return list(config.virtual_hosts).flatMap((vh) =>
    list(vh.routes).flatMap((r) =>
      isObject(r.route) && typeof r.route.cluster === 'string' ? [r.route.cluster] : [],
    ),
  );
}
