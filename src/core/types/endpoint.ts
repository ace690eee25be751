/** EDS: `envoy.config.endpoint.v3.ClusterLoadAssignment`, named by `cluster_name`. */
import { ENDPOINT_TYPE } from '../../xds/type-urls.js';
import type { ResourceType } from './resource-type.js';

export const endpointType: ResourceType = {
  typeUrl: ENDPOINT_TYPE,
  shortName: 'EDS',
  metricLabel: 'eds',
  nameField: 'cluster_name',
  wildcard: false,
  // istiod's buildEmptyClusterLoadAssignment (conformance: "SotW: names that do not exist").
  emptyResource: (name) => ({ '@type': ENDPOINT_TYPE, cluster_name: name }),
  adsOrder: 20,
  syncz: { prefix: 'endpoint', rank: 3 },
  proxyStatusColumn: 2,
  rejectGauge: { name: 'pilot_xds_eds_reject', help: 'Pilot rejected EDS.' },
  configDump: {
    rank: 20,
    section: 'EndpointsConfigDump',
    list: 'dynamic_endpoint_configs',
    entry: 'endpoint_config',
    staticList: 'static_endpoint_configs',
    optIn: true,
  },
};
