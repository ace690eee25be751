/**
 * Pure builders for EDS: clusters whose endpoints arrive over ADS, and the
 * `ClusterLoadAssignment`s that carry them.
 */
import { ENDPOINT_TYPE } from '../xds/type-urls.js';
import { clusterHead, makeSocketAddress, type SocketAddress } from './cluster.js';

/** An ADS config source, as Istio writes it (`initial_fetch_timeout: 0s`: wait for ever). */
export function makeAdsConfigSource(initialFetchTimeout = '0s') {
  return { ads: {}, initial_fetch_timeout: initialFetchTimeout, resource_api_version: 'V3' };
}

export interface EdsClusterOptions {
  name: string;
  connectTimeout?: string;
  /** How long Envoy waits for the endpoints before warming ends without them. */
  initialFetchTimeout?: string;
}

/** A cluster of type `EDS`: it warms until its `ClusterLoadAssignment` arrives. */
export function makeEdsCluster(options: EdsClusterOptions) {
  return {
    ...clusterHead(options.name, 'EDS', options.connectTimeout),
    eds_cluster_config: { eds_config: makeAdsConfigSource(options.initialFetchTimeout) },
  };
}

export interface LoadAssignmentOptions {
  clusterName: string;
  endpoints: readonly SocketAddress[];
  /** Every locality entry sets a locality (proxyless gRPC clients require it). */
  locality?: { region?: string; zone?: string; sub_zone?: string };
}

export function makeClusterLoadAssignment(options: LoadAssignmentOptions) {
  return {
    '@type': ENDPOINT_TYPE,
    cluster_name: options.clusterName,
    endpoints:
      options.endpoints.length === 0
        ? []
        : [
            {
              locality: options.locality ?? { region: 'local' },
              lb_endpoints: options.endpoints.map((endpoint) => ({
                endpoint: { address: makeSocketAddress(endpoint) },
                load_balancing_weight: 1,
              })),
              load_balancing_weight: 1,
            },
          ],
  };
}
