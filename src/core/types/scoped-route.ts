/** SRDS: `envoy.config.route.v3.ScopedRouteConfiguration`, pushed between LDS and RDS. */
import { ROUTE_TYPE, SCOPED_ROUTE_TYPE } from '../../xds/type-urls.js';
import type { ResourceType } from './resource-type.js';

export const scopedRouteType: ResourceType = {
  typeUrl: SCOPED_ROUTE_TYPE,
  shortName: 'SRDS',
  metricLabel: 'srds',
  nameField: 'name',
  // Envoy subscribes to every scope (no names) and treats each response as the full set.
  wildcard: true,
  adsOrder: 40,
  configDump: {
    rank: 40,
    section: 'ScopedRoutesConfigDump',
    list: 'dynamic_scoped_route_configs',
    entry: 'scoped_route_configs',
    grouped: true,
    inline: {
      list: 'inline_scoped_route_configs',
      note: 'inline scopes live inside their listener, which carries them',
    },
  },
  // A scope whose route configuration is not served waits for it, as a listener does for RDS.
  references: (scope) =>
    typeof scope.route_configuration_name === 'string'
      ? [
          {
            typeUrl: ROUTE_TYPE,
            name: scope.route_configuration_name,
            path: 'route_configuration_name',
            missing: 'warm',
            message: `no route configuration "${scope.route_configuration_name}" in the set: no routes (over SotW it is sent an empty one, as istiod does; over delta or with omitMissingResources the scope warms until one is served)`,
          },
        ]
      : [],
};
