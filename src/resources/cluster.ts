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

/** A `STATIC` cluster with inline endpoints (Istio's `inbound|<port>||` and `BlackHoleCluster`). */
export function makeStaticCluster(options: StaticClusterOptions) {
  return {
    '@type': CLUSTER_TYPE,
    name: options.name,
    type: 'STATIC',
    connect_timeout: options.connectTimeout ?? '10s',
    load_assignment: {
      cluster_name: options.name,
      endpoints:
        options.endpoints.length === 0
          ? []
          : [
              {
                lb_endpoints: options.endpoints.map((endpoint) => ({
                  endpoint: { address: makeSocketAddress(endpoint) },
                })),
              },
            ],
    },
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
  return {
    '@type': CLUSTER_TYPE,
    name: options.name,
    type: 'STRICT_DNS',
    connect_timeout: options.connectTimeout ?? '10s',
    load_assignment: {
      cluster_name: options.name,
      endpoints: [
        {
          lb_endpoints: [
            {
              endpoint: {
                address: makeSocketAddress({ address: options.host, port: options.port }),
              },
            },
          ],
        },
      ],
    },
    ...(options.transportSocket && { transport_socket: options.transportSocket }),
  };
}
