/** CDS: `envoy.config.cluster.v3.Cluster`. */
import { objectOr } from '../../util/guards.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE } from '../../xds/type-urls.js';
import type { ResourceType } from './resource-type.js';

export const clusterType: ResourceType = {
  typeUrl: CLUSTER_TYPE,
  shortName: 'CDS',
  metricLabel: 'cds',
  nameField: 'name',
  wildcard: true,
  // Conformance: "SotW: EDS after CDS".
  warmingDependents: [ENDPOINT_TYPE],
  adsOrder: 10,
  syncz: { prefix: 'cluster', rank: 0 },
  proxyStatusColumn: 0,
  envoyStats: 'cluster_manager.cds',
  rejectGauge: { name: 'pilot_xds_cds_reject', help: 'Pilot rejected CDS configs.' },
  configDump: {
    rank: 10,
    section: 'ClustersConfigDump',
    list: 'dynamic_active_clusters',
    entry: 'cluster',
    staticList: 'static_clusters',
    warmingList: 'dynamic_warming_clusters',
    errorState: true,
    versioned: true,
  },
  references: (cluster) => {
    if (cluster.type !== 'EDS') return [];
    const service = objectOr(cluster.eds_cluster_config).service_name;
    const name = typeof service === 'string' && service !== '' ? service : String(cluster.name);
    return [
      {
        typeUrl: ENDPOINT_TYPE,
        name,
        path: '',
        missing: 'warm',
        message: `EDS cluster without a ClusterLoadAssignment "${name}" in the set: no endpoints (over SotW it is sent an empty one, as istiod does; over delta or with omitMissingResources it warms until one is served)`,
      },
    ];
  },
};
