/**
 * Builds an Envoy v3 bootstrap shaped like the one pilot-agent writes for a sidecar (see the
 * bootstrap table in shared/seeds/README.md): who the proxy is (`node`) and where to fetch the
 * rest (one static cluster, `xds-grpc`, used by ADS for CDS and LDS). On request it adds the
 * readiness (15021) and Prometheus (15090) listeners a real sidecar has, each with the local
 * cluster it routes to (see `probe-listeners.ts`). Pure: no I/O, the same
 * options always give the same object, in canonical proto3 JSON (snake_case fields, durations
 * as strings) so that it can be written as JSON or YAML and read by Envoy as is.
 */
import { isIP } from 'node:net';
import { makeProbeListeners } from './probe-listeners.js';
import { makeXdsTlsSocket } from './xds-tls.js';
import { formatDuration, socketAddress, type JsonObject } from './proto-json.js';
import { MockIstiodError } from '../util/errors.js';
import {
  ADMIN_ADDRESS_KEY,
  resolveSidecarBootstrapOptions,
  type SidecarBootstrapOptions,
} from './sidecar-options.js';

export { formatDuration, type JsonObject, type JsonValue } from './proto-json.js';
export {
  ADMIN_ADDRESS_KEY,
  DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS,
  DEFAULT_STATS_INCLUSION_PREFIXES,
  SIDECAR_PORTS,
  resolveSidecarBootstrapOptions,
  type SidecarBootstrapOptions,
} from './sidecar-options.js';

/** Builds the bootstrap; bad options throw `INVALID_OPTIONS`, naming every bad field. */
export function makeSidecarBootstrap(input: Partial<SidecarBootstrapOptions> = {}): JsonObject {
  const resolved = resolveSidecarBootstrapOptions(input);
  if (!resolved.ok) {
    throw MockIstiodError.fromProblems(
      'INVALID_OPTIONS',
      'invalid bootstrap options',
      resolved.problems,
    );
  }
  const o = resolved.value;
  const probes = makeProbeListeners(o);
  const staticResources: JsonObject = { clusters: [makeXdsCluster(o), ...probes.clusters] };
  if (probes.listeners.length > 0) staticResources['listeners'] = probes.listeners;
  const bootstrap: JsonObject = {
    node: makeNode(o),
    admin: { address: socketAddress(o.adminHost, o.adminPort) },
    static_resources: staticResources,
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

/**
 * `<workload>.<namespace>`; without a workload name, `istio-proxy.<namespace>` as pilot-agent
 * falls back (it would prefer the pod's `app` label, which this builder does not read).
 */
export function sidecarServiceCluster(o: SidecarBootstrapOptions): string {
  return `${o.workloadName === '' ? 'istio-proxy' : o.workloadName}.${o.namespace}`;
}

/** The pod's identity in node metadata, as pilot-agent writes it for Envoy and gRPC alike. */
export function podMetadata(o: SidecarBootstrapOptions): JsonObject {
  const metadata: JsonObject = {
    CLUSTER_ID: o.clusterId,
    INSTANCE_IPS: o.podIp,
    ISTIO_VERSION: o.istioVersion,
    MESH_ID: o.meshId,
    NAME: o.podName,
    NAMESPACE: o.namespace,
    SERVICE_ACCOUNT: o.serviceAccount,
  };
  if (o.workloadName !== '') metadata['WORKLOAD_NAME'] = o.workloadName;
  return metadata;
}

function makeNode(o: SidecarBootstrapOptions): JsonObject {
  const metadata = podMetadata(o);
  // pilot-agent tells istiod which ports its static listeners hold, so that no pushed listener
  // takes them (Istio's ENVOY_STATUS_PORT and ENVOY_PROMETHEUS_PORT, numbers).
  if (o.readinessPort !== null) metadata['ENVOY_STATUS_PORT'] = o.readinessPort;
  if (o.prometheusPort !== null) metadata['ENVOY_PROMETHEUS_PORT'] = o.prometheusPort;
  // Where Envoy's admin API is, so that the mock's live page and `status` find it. A free
  // port (0) is known only once Envoy runs: whoever starts it names it (as the agent does).
  if (o.adminPort !== 0) metadata[ADMIN_ADDRESS_KEY] = adminAddress(o.adminHost, o.adminPort);
  return {
    id: sidecarNodeId(o),
    cluster: sidecarServiceCluster(o),
    metadata: { ...metadata, ...o.metadata },
  };
}

/** `host:port` a client on this machine reaches: an unspecified host means loopback. */
function adminAddress(host: string, port: number): string {
  if (host === '0.0.0.0') return `127.0.0.1:${port}`;
  if (host === '::') return `[::1]:${port}`;
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
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
  if (o.tlsRootCertPath !== null) {
    cluster['transport_socket'] = makeXdsTlsSocket(o.tlsRootCertPath, o.tlsServerName);
  }
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
          ...(o.xdsToken !== null && {
            initial_metadata: [{ key: 'authorization', value: `Bearer ${o.xdsToken}` }],
          }),
        },
      ],
    },
    cds_config: adsSource(),
    lds_config: adsSource(),
  };
}
