/**
 * Resources for proxyless gRPC clients (gRPC's own xDS client, as istiod serves it): a
 * client dialing `xds:///<host>:<port>` asks LDS for a listener of that name holding an
 * `api_listener` (an HTTP connection manager whose last filter is the router), then RDS for
 * its routes, CDS for the cluster (EDS, as gRPC does not take STATIC), and EDS for the
 * endpoints (each locality set, or gRPC rejects the assignment).
 */
import type { SocketAddress } from './cluster.js';
import { makeAdsConfigSource, makeClusterLoadAssignment, makeEdsCluster } from './endpoint.js';
import { makeRouteConfiguration } from './listener.js';
import type { EnvoyResource } from './types.js';
import { LISTENER_TYPE } from '../xds/type-urls.js';

const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

export interface ProxylessServiceOptions {
  /** The service's host name, e.g. `orders.default.svc.cluster.local`. */
  host: string;
  port: number;
  endpoints: readonly SocketAddress[];
}

/** istiod's names: listener `<host>:<port>`, cluster `outbound|<port>||<host>`. */
export function makeProxylessService(options: ProxylessServiceOptions): EnvoyResource[] {
  const target = `${options.host}:${options.port}`;
  const cluster = `outbound|${options.port}||${options.host}`;
  return [
    {
      '@type': LISTENER_TYPE,
      name: target,
      api_listener: {
        api_listener: {
          '@type': HCM_TYPE,
          rds: { config_source: makeAdsConfigSource(), route_config_name: target },
          http_filters: [
            { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER_TYPE } },
          ],
        },
      },
    },
    makeRouteConfiguration(target, cluster),
    makeEdsCluster({ name: cluster }),
    makeClusterLoadAssignment({ clusterName: cluster, endpoints: options.endpoints }),
  ];
}
