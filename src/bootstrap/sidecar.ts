/**
 * Builds an Envoy v3 bootstrap shaped like the one pilot-agent writes for a sidecar (see the
 * bootstrap table in shared/seeds/README.md): who the proxy is (`node`) and where to fetch the
 * rest (one static cluster, `xds-grpc`, used by ADS for CDS and LDS). Pure: no I/O, the same
 * options always give the same object, in canonical proto3 JSON (snake_case fields, durations
 * as strings) so that it can be written as JSON or YAML and read by Envoy as is.
 */
import { isIP } from 'node:net';
import type { Problem, Result } from '../xds/problems.js';
import { formatProblems } from '../xds/problems.js';

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface SidecarBootstrapOptions {
  /** Pod name (`POD_NAME`). */
  podName: string;
  /** Pod namespace (`POD_NAMESPACE`). */
  namespace: string;
  /** Pod IP (`INSTANCE_IP`), the second part of the node id. */
  podIp: string;
  /** Workload name: `node.cluster` is `<workloadName>.<namespace>`. */
  workloadName: string;
  /** Service account (`SERVICE_ACCOUNT`). */
  serviceAccount: string;
  /** Kubernetes DNS domain: the node id ends in `<namespace>.svc.<dnsDomain>`. */
  dnsDomain: string;
  /** `ISTIO_META_CLUSTER_ID`. */
  clusterId: string;
  /** `ISTIO_META_MESH_ID`. */
  meshId: string;
  /** `ISTIO_VERSION` reported in the node metadata. */
  istioVersion: string;
  /** Extra node metadata (`ISTIO_META_*` without the prefix); wins over the fields above. */
  metadata: JsonObject;
  /** The control plane (mesh config `discoveryAddress`): an IP gives a STATIC cluster. */
  discoveryHost: string;
  discoveryPort: number;
  /** Envoy's admin listener (a real sidecar: 127.0.0.1:15000; 0 lets the OS choose). */
  adminHost: string;
  adminPort: number;
  /** Name of the static cluster that points at the control plane. */
  xdsClusterName: string;
  /** Cluster ADS names; differs from `xdsClusterName` only to build a broken bootstrap. */
  adsClusterName: string;
  /** `sotw` → `api_type: GRPC`; `delta` → `DELTA_GRPC` (Istio's default since 1.22). */
  xdsMode: 'sotw' | 'delta';
  /** Reconnect back-off after the ADS stream closes (Envoy's default: 500 ms base, 30 s max). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** 0 (as pilot-agent) waits for the first CDS/LDS response forever. */
  initialFetchTimeoutMs: number;
  connectTimeoutMs: number;
  /** Stat name prefixes kept by the stats matcher, or `all` for no matcher. */
  statsInclusionPrefixes: readonly string[] | 'all';
}

/**
 * The stats kept visible. Istio's sidecar bootstrap keeps `cluster_manager`, `listener_manager`,
 * `server` and `cluster.xds-grpc` (and its own telemetry) but drops `control_plane.*`, which
 * is the signal this project teaches (withheld = 1, unreachable = 0). So: Istio's prefixes plus
 * `control_plane.`, and all per-cluster, per-listener and HTTP connection manager stats, which
 * the lab's assertions read (`cluster.inbound|8101||.*`, `http.*.downstream_rq_*`). Dropped:
 * the rest (`vhost.*`, `dns.*`, `filesystem.*`, thread and runtime stats), as in Istio.
 */
export const DEFAULT_STATS_INCLUSION_PREFIXES: readonly string[] = [
  'cluster_manager.',
  'listener_manager.',
  'server.',
  'control_plane.',
  'cluster.',
  'listener.',
  'http.',
];

export const DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS: Readonly<SidecarBootstrapOptions> = Object.freeze({
  podName: 'orders-v1-0',
  namespace: 'default',
  podIp: '10.0.0.1',
  workloadName: 'orders-v1',
  serviceAccount: 'default',
  dnsDomain: 'cluster.local',
  clusterId: 'Kubernetes',
  meshId: 'cluster.local',
  istioVersion: '1.28.0',
  metadata: {},
  discoveryHost: '127.0.0.1',
  discoveryPort: 15012,
  adminHost: '127.0.0.1',
  adminPort: 15000,
  xdsClusterName: 'xds-grpc',
  adsClusterName: 'xds-grpc',
  xdsMode: 'sotw',
  retryBaseMs: 200,
  retryMaxMs: 1000,
  initialFetchTimeoutMs: 0,
  connectTimeoutMs: 1000,
  statsInclusionPrefixes: DEFAULT_STATS_INCLUSION_PREFIXES,
});

/** The options were invalid; `problems` names every bad field. */
export class InvalidBootstrapOptionsError extends Error {
  constructor(readonly problems: readonly Problem[]) {
    super(`invalid bootstrap options: ${formatProblems(problems)}`);
    this.name = 'InvalidBootstrapOptionsError';
  }
}

/** Fills in defaults and checks every field, reporting all problems at once. */
export function resolveSidecarBootstrapOptions(
  input: Partial<SidecarBootstrapOptions> = {},
): Result<SidecarBootstrapOptions> {
  const options: SidecarBootstrapOptions = { ...DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS };
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  const problems = checkOptions(options);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: options };
}

function checkOptions(o: SidecarBootstrapOptions): Problem[] {
  const problems: Problem[] = [];
  const nodeIdParts = ['podName', 'namespace', 'podIp', 'dnsDomain'] as const;
  const names = [...nodeIdParts, 'workloadName', 'discoveryHost', 'adminHost'] as const;
  for (const key of names) {
    if (o[key] === '') problems.push({ path: key, message: 'must not be empty' });
  }
  for (const key of nodeIdParts) {
    if (o[key].includes('~')) problems.push({ path: key, message: "must not contain '~'" });
  }
  if (isIP(o.podIp) === 0) problems.push({ path: 'podIp', message: 'must be an IP address' });
  checkInteger(problems, 'discoveryPort', o.discoveryPort, 1, 65535);
  checkInteger(problems, 'adminPort', o.adminPort, 0, 65535);
  checkInteger(problems, 'retryBaseMs', o.retryBaseMs, 1, Number.MAX_SAFE_INTEGER);
  checkInteger(problems, 'retryMaxMs', o.retryMaxMs, o.retryBaseMs, Number.MAX_SAFE_INTEGER);
  checkInteger(problems, 'initialFetchTimeoutMs', o.initialFetchTimeoutMs, 0, 2 ** 31);
  checkInteger(problems, 'connectTimeoutMs', o.connectTimeoutMs, 1, 2 ** 31);
  if (o.xdsMode !== 'sotw' && o.xdsMode !== 'delta') {
    problems.push({ path: 'xdsMode', message: "must be 'sotw' or 'delta'" });
  }
  return problems;
}

function checkInteger(problems: Problem[], path: string, value: number, min: number, max: number) {
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push({ path, message: `must be an integer from ${min} to ${max}, got ${value}` });
  }
}

/** Builds the bootstrap; throws {@link InvalidBootstrapOptionsError} on bad options. */
export function makeSidecarBootstrap(input: Partial<SidecarBootstrapOptions> = {}): JsonObject {
  const resolved = resolveSidecarBootstrapOptions(input);
  if (!resolved.ok) throw new InvalidBootstrapOptionsError(resolved.problems);
  const o = resolved.value;
  const bootstrap: JsonObject = {
    node: makeNode(o),
    admin: { address: socketAddress(o.adminHost, o.adminPort) },
    static_resources: { clusters: [makeXdsCluster(o)] },
    dynamic_resources: makeDynamicResources(o),
  };
  if (o.statsInclusionPrefixes !== 'all') {
    const patterns = o.statsInclusionPrefixes.map((prefix) => ({ prefix }));
    bootstrap['stats_config'] = { stats_matcher: { inclusion_list: { patterns } } };
  }
  return bootstrap;
}

/** `sidecar~<ip>~<pod>.<ns>~<ns>.svc.<domain>`: the four parts istiod parses. */
export function sidecarNodeId(o: SidecarBootstrapOptions): string {
  return `sidecar~${o.podIp}~${o.podName}.${o.namespace}~${o.namespace}.svc.${o.dnsDomain}`;
}

function makeNode(o: SidecarBootstrapOptions): JsonObject {
  return {
    id: sidecarNodeId(o),
    cluster: `${o.workloadName}.${o.namespace}`,
    metadata: {
      CLUSTER_ID: o.clusterId,
      INSTANCE_IPS: o.podIp,
      ISTIO_VERSION: o.istioVersion,
      MESH_ID: o.meshId,
      NAME: o.podName,
      NAMESPACE: o.namespace,
      SERVICE_ACCOUNT: o.serviceAccount,
      WORKLOAD_NAME: o.workloadName,
      ...o.metadata,
    },
  };
}

function socketAddress(address: string, port: number): JsonObject {
  return { socket_address: { address, port_value: port } };
}

function makeXdsCluster(o: SidecarBootstrapOptions): JsonObject {
  const isAddress = isIP(o.discoveryHost) !== 0;
  const cluster: JsonObject = {
    name: o.xdsClusterName,
    type: isAddress ? 'STATIC' : 'STRICT_DNS',
    connect_timeout: formatDuration(o.connectTimeoutMs),
    load_assignment: {
      cluster_name: o.xdsClusterName,
      endpoints: [
        {
          lb_endpoints: [
            { endpoint: { address: socketAddress(o.discoveryHost, o.discoveryPort) } },
          ],
        },
      ],
    },
    // xDS is gRPC, so the cluster must speak HTTP/2 to the control plane.
    typed_extension_protocol_options: {
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
        '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
  };
  // `localhost` may resolve to ::1 first while the mock listens on 127.0.0.1.
  if (!isAddress) cluster['dns_lookup_family'] = 'V4_PREFERRED';
  return cluster;
}

function makeDynamicResources(o: SidecarBootstrapOptions): JsonObject {
  const adsSource = (): JsonObject => ({
    ads: {},
    initial_fetch_timeout: formatDuration(o.initialFetchTimeoutMs),
    resource_api_version: 'V3',
  });
  const retryBackOff = {
    base_interval: formatDuration(o.retryBaseMs),
    max_interval: formatDuration(o.retryMaxMs),
  };
  return {
    ads_config: {
      api_type: o.xdsMode === 'delta' ? 'DELTA_GRPC' : 'GRPC',
      transport_api_version: 'V3',
      set_node_on_first_message_only: true,
      grpc_services: [
        {
          envoy_grpc: {
            cluster_name: o.adsClusterName,
            retry_policy: { retry_back_off: retryBackOff },
          },
        },
      ],
    },
    cds_config: adsSource(),
    lds_config: adsSource(),
  };
}

/** Milliseconds as a canonical proto3 JSON Duration: `0s`, `1s`, `0.200s`, `1.500s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const millis = ms % 1000;
  return millis === 0 ? `${seconds}s` : `${seconds}.${String(millis).padStart(3, '0')}s`;
}
