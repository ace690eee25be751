/** RDS: `envoy.config.route.v3.RouteConfiguration`. */
import { objectOr, objectsIn } from '../../util/guards.js';
import { CLUSTER_TYPE, ROUTE_TYPE } from '../../xds/type-urls.js';
import type { Reference, ResourceJson, ResourceType } from './resource-type.js';

/** Every cluster a route configuration names (`route.cluster`, weighted clusters). */
export function routeClusters(
  routeConfig: ResourceJson,
  path: string,
  missing: Reference['missing'],
): Reference[] {
  const refs: Reference[] = [];
  const ref = (name: string, at: string): Reference => ({
    typeUrl: CLUSTER_TYPE,
    name,
    path: at,
    missing,
    message: `unknown cluster '${name}'`,
  });
  objectsIn(routeConfig.virtual_hosts).forEach((vh, v) =>
    objectsIn(vh.routes).forEach((route, r) => {
      const action = objectOr(route.route);
      const at = `${path ? `${path}.` : ''}virtual_hosts[${v}].routes[${r}].route`;
      if (typeof action.cluster === 'string') refs.push(ref(action.cluster, `${at}.cluster`));
      objectsIn(objectOr(action.weighted_clusters).clusters).forEach((wc, w) => {
        if (typeof wc.name === 'string')
          refs.push(ref(wc.name, `${at}.weighted_clusters.clusters[${w}].name`));
      });
    }),
  );
  return refs;
}

export const routeType: ResourceType = {
  typeUrl: ROUTE_TYPE,
  shortName: 'RDS',
  metricLabel: 'rds',
  nameField: 'name',
  wildcard: false,
  // What istiod builds for a route name neither a sidecar's ports nor a gateway's servers
  // have (conformance: "SotW: names that do not exist"): no virtual hosts, and no check of
  // clusters.
  emptyResource: (name) => ({
    '@type': ROUTE_TYPE,
    name,
    virtual_hosts: [],
    validate_clusters: false,
  }),
  adsOrder: 50,
  syncz: { prefix: 'route', rank: 2 },
  proxyStatusColumn: 3,
  rejectGauge: { name: 'pilot_xds_rds_reject', help: 'Pilot rejected RDS.' },
  configDump: {
    rank: 50,
    section: 'RoutesConfigDump',
    list: 'dynamic_route_configs',
    entry: 'route_config',
    staticList: 'static_route_configs',
  },
  // Envoy does not check RDS routes' clusters by default (validate_clusters is false), so a
  // missing one is a 503 at request time, not a NACK.
  references: (route) => routeClusters(route, '', 'warm'),
};
