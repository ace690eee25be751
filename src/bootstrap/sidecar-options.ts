/**
 * The options of the sidecar bootstrap builder: what each means, the named defaults, and the
 * check that reports every bad field at once.
 */
import { isIP } from 'node:net';
import type { Problem, Result } from '../util/problems.js';
import { isObject } from '../util/guards.js';
import type { JsonObject } from './proto-json.js';

export interface SidecarBootstrapOptions {
  /** Pod name (`POD_NAME`). */
  podName: string;
  /** Pod namespace (`POD_NAMESPACE`). */
  namespace: string;
  /** Pod IP (`INSTANCE_IP`), the second part of the node id. */
  podIp: string;
  /**
   * Workload name (`ISTIO_META_WORKLOAD_NAME`): `node.cluster` is `<workloadName>.<namespace>`.
   * Empty means unknown: then, as pilot-agent does, `istio-proxy.<namespace>`.
   */
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
  /**
   * TLS to the control plane, as to istiod's 15012: the root certificate file Envoy trusts
   * (`validation_context.trusted_ca.filename`; `mock-istiod serve --tls` writes one), or
   * null for plaintext.
   */
  tlsRootCertPath: string | null;
  /** With TLS: the SNI sent, and the DNS name required on the control plane's certificate. */
  tlsServerName: string;
  /**
   * The pod's service account token, sent on the ADS stream as `authorization: Bearer <token>`
   * (`initial_metadata` of the grpc_service), as istiod's TLS port requires; null sends none.
   * pilot-agent adds it in its xDS proxy; a bootstrap without the agent must carry it inline.
   */
  xdsToken: string | null;
  /** Envoy's admin listener (a real sidecar: 127.0.0.1:15000; 0 lets the OS choose). */
  adminHost: string;
  adminPort: number;
  /** pilot-agent's status port (15020): where the readiness listener sends `/healthz/ready`. */
  agentPort: number;
  /** Envoy's readiness listener (a real sidecar: 15021), or null for none. */
  readinessPort: number | null;
  /** Envoy's Prometheus listener (a real sidecar: 15090), or null for none. */
  prometheusPort: number | null;
  /** Address the readiness and Prometheus listeners bind (a real sidecar: 0.0.0.0). */
  listenerHost: string;
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

/** The ports of a real sidecar (Istio's defaults). */
/**
 * The node metadata key naming a proxy's Envoy admin API (`host:port`): mock-istiod's own key
 * (Istio's bootstrap has none), read by the live page and `mock-istiod status`.
 */
export const ADMIN_ADDRESS_KEY = 'ENVOY_ADMIN_ADDRESS';

export const SIDECAR_PORTS = Object.freeze({
  /** mesh config `discoveryAddress`: istiod's xDS port. */
  discovery: 15012,
  /** Envoy's admin API (`proxyAdminPort`), on 127.0.0.1. */
  admin: 15000,
  /** pilot-agent's status server (`status.sidecar.istio.io/port`). */
  agentStatus: 15020,
  /** Envoy's readiness listener, the target of the pod's readiness probe. */
  readiness: 15021,
  /** Envoy's Prometheus listener (`http-envoy-prom`). */
  prometheus: 15090,
});

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

/**
 * Library defaults: the seed lab's pod, admin on 15000, and no readiness or Prometheus
 * listener (so that tests starting several Envoys never fight over 15021 and 15090). The
 * `bootstrap` and `agent` commands turn both listeners on, as a real sidecar has them.
 */
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
  discoveryPort: SIDECAR_PORTS.discovery,
  tlsRootCertPath: null,
  tlsServerName: 'istiod.istio-system.svc',
  xdsToken: null,
  adminHost: '127.0.0.1',
  adminPort: SIDECAR_PORTS.admin,
  agentPort: SIDECAR_PORTS.agentStatus,
  readinessPort: null,
  prometheusPort: null,
  listenerHost: '127.0.0.1',
  xdsClusterName: 'xds-grpc',
  adsClusterName: 'xds-grpc',
  xdsMode: 'sotw',
  retryBaseMs: 200,
  retryMaxMs: 1000,
  initialFetchTimeoutMs: 0,
  connectTimeoutMs: 1000,
  statsInclusionPrefixes: DEFAULT_STATS_INCLUSION_PREFIXES,
});

/**
 * The metadata keys Istio reads as booleans written as strings (`StringBool` in its node
 * metadata), which it parses with Go's `strconv.ParseBool` spellings, refusing to start on
 * any other.
 */
export const STRING_BOOLS = new Set([
  'DISABLE_HBONE_SEND',
  'DNS_AUTO_ALLOCATE',
  'DNS_CAPTURE',
  'ENABLE_HBONE',
  'ENABLE_SELF_DISCOVERY',
  'ENVOY_SKIP_DEPRECATED_LOGS',
  'EXIT_ON_ZERO_ACTIVE_CONNECTIONS',
  'INBOUND_LISTENER_EXACT_BALANCE',
  'METADATA_DISCOVERY',
  'OUTBOUND_LISTENER_EXACT_BALANCE',
]);
const TRUE_TEXTS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
export const FALSE_TEXTS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * The boolean keys as pilot-agent writes Envoy's bootstrap: its typed metadata over the raw
 * variables, so a true one is `"true"` and a false one stays as it was written (Go omits a
 * false one from the typed part). test/e2e/real-agent.test.ts holds this to the real agent.
 */
function normalizeBooleans(metadata: JsonObject, problems: Problem[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!STRING_BOOLS.has(key) || (typeof value === 'string' && FALSE_TEXTS.has(value))) {
      out[key] = value;
    } else if (typeof value === 'string' && TRUE_TEXTS.has(value)) out[key] = 'true';
    else {
      const found = JSON.stringify(value);
      problems.push({ path: `metadata.${key}`, message: `expected true or false, got ${found}` });
    }
  }
  return out;
}

/**
 * Fills in defaults and checks every field, reporting all problems at once. The metadata's
 * booleans are checked, and written as pilot-agent writes Envoy's bootstrap.
 */
export function resolveSidecarBootstrapOptions(
  input: Partial<SidecarBootstrapOptions> = {},
): Result<SidecarBootstrapOptions> {
  const options: SidecarBootstrapOptions = { ...DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS };
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  const problems = checkOptions(options);
  if (isObject(options.metadata)) {
    options.metadata = normalizeBooleans(options.metadata, problems);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: options };
}

function checkOptions(o: SidecarBootstrapOptions): Problem[] {
  const problems: Problem[] = [];
  const nodeIdParts = ['podName', 'namespace', 'podIp', 'dnsDomain'] as const;
  const names = [...nodeIdParts, 'discoveryHost', 'adminHost', 'listenerHost'] as const;
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
  checkProbePorts(problems, o);
  if (
    o.tlsRootCertPath !== null &&
    (typeof o.tlsRootCertPath !== 'string' || o.tlsRootCertPath === '')
  ) {
    problems.push({ path: 'tlsRootCertPath', message: 'must be a file path or null' });
  }
  if (typeof o.tlsServerName !== 'string' || o.tlsServerName === '') {
    problems.push({ path: 'tlsServerName', message: 'must not be empty' });
  }
  if (
    o.xdsToken !== null &&
    (typeof o.xdsToken !== 'string' || !/^[\x21-\x7e]+$/.test(o.xdsToken))
  ) {
    problems.push({
      path: 'xdsToken',
      message: 'must be a token (printable ASCII, no spaces) or null',
    });
  }
  return problems;
}

/**
 * The readiness and Prometheus listeners are named after their ports and point at fixed
 * addresses, so their ports (and, for Prometheus, the admin port) must be known up front.
 */
function checkProbePorts(problems: Problem[], o: SidecarBootstrapOptions): void {
  if (o.readinessPort !== null) {
    checkInteger(problems, 'readinessPort', o.readinessPort, 1, 65535);
    checkInteger(problems, 'agentPort', o.agentPort, 1, 65535);
  }
  if (o.prometheusPort !== null) {
    checkInteger(problems, 'prometheusPort', o.prometheusPort, 1, 65535);
    if (o.adminPort === 0) {
      problems.push({
        path: 'adminPort',
        message: 'must be a fixed port when prometheusPort is set (prometheus_stats points at it)',
      });
    }
  }
  if (o.readinessPort !== null && o.readinessPort === o.prometheusPort) {
    problems.push({ path: 'prometheusPort', message: 'must differ from readinessPort' });
  }
}

function checkInteger(problems: Problem[], path: string, value: number, min: number, max: number) {
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push({ path, message: `must be an integer from ${min} to ${max}, got ${value}` });
  }
}
