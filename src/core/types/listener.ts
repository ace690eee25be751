/** LDS: `envoy.config.listener.v3.Listener`. */
import { objectOr, objectsIn } from '../../util/guards.js';
import { LISTENER_TYPE, ROUTE_TYPE } from '../../xds/type-urls.js';
import type { Reference, ResourceJson, ResourceType } from './resource-type.js';
import { routeClusters } from './route.js';

/** The HTTP connection managers of a listener (and of an `api_listener`), with their paths. */
function connectionManagers(listener: ResourceJson): { hcm: ResourceJson; path: string }[] {
  const out: { hcm: ResourceJson; path: string }[] = [];
  objectsIn(listener.filter_chains).forEach((chain, c) =>
    objectsIn(chain.filters).forEach((filter, f) => {
      const config = objectOr(filter.typed_config);
      if (String(config['@type']).endsWith('.HttpConnectionManager')) {
        out.push({ hcm: config, path: `filter_chains[${c}].filters[${f}].typed_config` });
      }
    }),
  );
  const api = objectOr(objectOr(listener.api_listener).api_listener);
  if (String(api['@type']).endsWith('.HttpConnectionManager'))
    out.push({ hcm: api, path: 'api_listener.api_listener' });
  return out;
}

/** An inline route naming an unknown cluster is NACKed; an RDS name not served warms. */
function listenerReferences(listener: ResourceJson): Reference[] {
  return connectionManagers(listener).flatMap(({ hcm, path }) => {
    const refs = hcm.route_config
      ? routeClusters(objectOr(hcm.route_config), `${path}.route_config`, 'nack')
      : [];
    const rdsName = objectOr(hcm.rds).route_config_name;
    if (typeof rdsName === 'string') {
      refs.push({
        typeUrl: ROUTE_TYPE,
        name: rdsName,
        path: `${path}.rds.route_config_name`,
        missing: 'warm',
        message: `no route configuration "${rdsName}" in the set: no routes (over SotW it is sent an empty one, as istiod does; over delta or with omitMissingResources the listener warms until one is served)`,
      });
    }
    return refs;
  });
}

export const listenerType: ResourceType = {
  typeUrl: LISTENER_TYPE,
  shortName: 'LDS',
  metricLabel: 'lds',
  nameField: 'name',
  wildcard: true,
  adsOrder: 30,
  syncz: { prefix: 'listener', rank: 1 },
  proxyStatusColumn: 1,
  envoyStats: 'listener_manager.lds',
  rejectGauge: { name: 'pilot_xds_lds_reject', help: 'Pilot rejected LDS.' },
  configDump: {
    rank: 30,
    section: 'ListenersConfigDump',
    list: 'dynamic_listeners',
    entry: 'listener',
    staticList: 'static_listeners',
    errorState: true,
    named: true,
    activeState: true,
    versioned: true,
  },
  references: listenerReferences,
};
