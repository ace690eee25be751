/**
 * Pure builders for clusters, in Envoy's canonical proto3 JSON (the shape of Envoy's docs
 * and of resource files), each with its `@type`.
 */
import { CLUSTER_TYPE } from '../xds/type-urls.js';

export interface SocketAddress {
  address: string;
  port: number;
}

export interface StaticClusterOptions {
  name: string;
  /** Zero endpoints makes a cluster like Istio's `BlackHoleCluster`. */
  endpoints: readonly SocketAddress[];
  connectTimeout?: string;
}

export function makeSocketAddress({ address, port }: SocketAddress) {
  return { socket_address: { address, port_value: port } };
}

/** What every cluster starts with: its type URL, name, discovery type and connect timeout. */
export function clusterHead(name: string, type: string, connectTimeout = '10s') {
  return { '@type': CLUSTER_TYPE, name, type, connect_timeout: connectTimeout };
}

/** A cluster's inline endpoints: one locality entry, none when there are no endpoints. */
function inlineAssignment(clusterName: string, endpoints: readonly SocketAddress[]) {
  const lbEndpoints = endpoints.map((endpoint) => ({
    endpoint: { address: makeSocketAddress(endpoint) },
  }));
  return {
    cluster_name: clusterName,
    endpoints: endpoints.length === 0 ? [] : [{ lb_endpoints: lbEndpoints }],
  };
}

/** A `STATIC` cluster with inline endpoints (Istio's `inbound|<port>||` and `BlackHoleCluster`). */
export function makeStaticCluster(options: StaticClusterOptions) {
  return {
    ...clusterHead(options.name, 'STATIC', options.connectTimeout),
    load_assignment: inlineAssignment(options.name, options.endpoints),
  };
}

export interface DnsClusterOptions {
  name: string;
  /** A name resolved by Envoy (a Service's `<name>.<ns>.svc.cluster.local` in a pod). */
  host: string;
  port: number;
  connectTimeout?: string;
  /** The cluster's `transport_socket` (Istio's outbound mutual TLS); none: plaintext. */
  transportSocket?: object;
}

/** A `STRICT_DNS` cluster of one host name (Istio's `outbound|<port>||<host>` for a Service). */
export function makeDnsCluster(options: DnsClusterOptions) {
  const host = { address: options.host, port: options.port };
  return {
    ...clusterHead(options.name, 'STRICT_DNS', options.connectTimeout),
    load_assignment: inlineAssignment(options.name, [host]),
    ...(options.transportSocket && { transport_socket: options.transportSocket }),
  };
}
