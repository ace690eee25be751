/**
 * Pure builders for listeners: an HTTP listener whose HTTP connection manager routes every
 * path to one cluster through an inline route configuration.
 */
import { LISTENER_TYPE, ROUTE_TYPE } from '../xds/type-urls.js';
import { makeSocketAddress, type SocketAddress } from './cluster.js';
import { makeAdsConfigSource } from './endpoint.js';

const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

export type TrafficDirection = 'INBOUND' | 'OUTBOUND' | 'UNSPECIFIED';

export interface HttpListenerOptions extends SocketAddress {
  name: string;
  direction: TrafficDirection;
  /** Every request, whatever its path, goes to this cluster. */
  cluster: string;
  statPrefix?: string;
  routeConfigName?: string;
  /** Fetch the route configuration over RDS instead of inlining it. */
  rds?: boolean;
  /** The filter chain's `transport_socket` (e.g. Istio's inbound mutual TLS); none: plaintext. */
  transportSocket?: object;
}

/** A route configuration with one virtual host sending every domain and path to `cluster`. */
export function makeRouteToCluster(name: string, cluster: string) {
  return {
    name,
    virtual_hosts: [
      {
        name: `${name}-all`,
        domains: ['*'],
        routes: [{ match: { prefix: '/' }, route: { cluster } }],
      },
    ],
  };
}

/** The same, as an RDS resource (with its `@type`). */
export function makeRouteConfiguration(name: string, cluster: string) {
  return { '@type': ROUTE_TYPE, ...makeRouteToCluster(name, cluster) };
}

export function makeHttpListener(options: HttpListenerOptions) {
  const statPrefix = options.statPrefix ?? options.name;
  const routeName = options.routeConfigName ?? options.name;
  const routes = options.rds
    ? { rds: { config_source: makeAdsConfigSource(), route_config_name: routeName } }
    : { route_config: makeRouteToCluster(routeName, options.cluster) };
  return {
    '@type': LISTENER_TYPE,
    name: options.name,
    address: makeSocketAddress(options),
    traffic_direction: options.direction,
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM_TYPE,
              stat_prefix: statPrefix,
              ...routes,
              http_filters: [
                { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER_TYPE } },
              ],
            },
          },
        ],
        ...(options.transportSocket && { transport_socket: options.transportSocket }),
      },
    ],
  };
}
