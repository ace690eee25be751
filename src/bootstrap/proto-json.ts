/**
 * Small shared pieces of the bootstrap builders: plain JSON types and canonical proto3 JSON
 * spellings (durations, socket addresses), so that every builder writes what Envoy reads as is.
 */

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Milliseconds as a canonical proto3 JSON Duration: `0s`, `1s`, `0.200s`, `1.500s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const millis = ms % 1000;
  return millis === 0 ? `${seconds}s` : `${seconds}.${String(millis).padStart(3, '0')}s`;
}

export function socketAddress(address: string, port: number): JsonObject {
  return { socket_address: { address, port_value: port } };
}

/** A STATIC cluster with one endpoint, as Istio's bootstrap writes `agent` and `prometheus_stats`. */
export function staticCluster(
  name: string,
  host: string,
  port: number,
  connectTimeout: string,
): JsonObject {
  return {
    name,
    type: 'STATIC',
    connect_timeout: connectTimeout,
    load_assignment: {
      cluster_name: name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: socketAddress(host, port) } }] }],
    },
  };
}
