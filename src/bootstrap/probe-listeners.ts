/**
 * The two static listeners every Istio sidecar's bootstrap has besides xDS (checked against
 * Istio's `tools/packaging/common/envoy_bootstrap.json`):
 *
 * - the **readiness** listener (15021): `/healthz/ready` → cluster `agent` → pilot-agent's
 *   status port (15020). The kubelet's readiness probe goes through Envoy this way, so a
 *   probe only succeeds when Envoy itself serves traffic *and* pilot-agent says it is ready;
 * - the **Prometheus** listener (15090): `/stats/prometheus` → cluster `prometheus_stats` →
 *   Envoy's own admin port, so that metrics can be scraped without exposing the admin API.
 *
 * Listener names follow Istio's `<address>_<port>`.
 */
import { formatDuration, socketAddress, staticCluster, type JsonObject } from './proto-json.js';

const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

/** The cluster behind the readiness listener: pilot-agent's status server. */
export const AGENT_CLUSTER = 'agent';
/** The cluster behind the Prometheus listener: Envoy's admin API. */
export const PROMETHEUS_CLUSTER = 'prometheus_stats';
/** The path the readiness listener routes, and pilot-agent serves. */
export const READINESS_PATH = '/healthz/ready';
/** The path the Prometheus listener routes to the admin API. */
export const PROMETHEUS_PATH = '/stats/prometheus';

export interface ProbeListenerOptions {
  /** Address both listeners bind. */
  listenerHost: string;
  /** The readiness listener's port (15021), or null for none. */
  readinessPort: number | null;
  /** The Prometheus listener's port (15090), or null for none. */
  prometheusPort: number | null;
  /** pilot-agent's status port (15020), where `agent` points. */
  agentPort: number;
  /** Envoy's admin address, where `prometheus_stats` points. */
  adminHost: string;
  adminPort: number;
}

export interface ProbeListeners {
  clusters: JsonObject[];
  listeners: JsonObject[];
}

/** The clusters and listeners for the ports that are set (none when both are null). */
export function makeProbeListeners(o: ProbeListenerOptions): ProbeListeners {
  const result: ProbeListeners = { clusters: [], listeners: [] };
  // Istio gives both local clusters a short connect timeout: they are on the same host.
  const timeout = formatDuration(250);
  if (o.prometheusPort !== null) {
    result.clusters.push(staticCluster(PROMETHEUS_CLUSTER, o.adminHost, o.adminPort, timeout));
    result.listeners.push(
      httpListener(o.listenerHost, o.prometheusPort, 'stats', PROMETHEUS_PATH, PROMETHEUS_CLUSTER),
    );
  }
  if (o.readinessPort !== null) {
    result.clusters.push(staticCluster(AGENT_CLUSTER, '127.0.0.1', o.agentPort, timeout));
    result.listeners.push(
      httpListener(o.listenerHost, o.readinessPort, 'agent', READINESS_PATH, AGENT_CLUSTER),
    );
  }
  return result;
}

/** `<address>_<port>`, Istio's name for these listeners. */
export function probeListenerName(host: string, port: number): string {
  return `${host}_${port}`;
}

function httpListener(
  host: string,
  port: number,
  statPrefix: string,
  pathPrefix: string,
  cluster: string,
): JsonObject {
  return {
    name: probeListenerName(host, port),
    address: socketAddress(host, port),
    // As in Istio: probes and scrapes must get through even when Envoy is overloaded.
    ignore_global_conn_limit: true,
    bypass_overload_manager: true,
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM_TYPE,
              codec_type: 'AUTO',
              stat_prefix: statPrefix,
              route_config: {
                virtual_hosts: [
                  {
                    name: 'backend',
                    domains: ['*'],
                    routes: [{ match: { prefix: pathPrefix }, route: { cluster } }],
                  },
                ],
              },
              http_filters: [
                { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER_TYPE } },
              ],
            },
          },
        ],
      },
    ],
  };
}
