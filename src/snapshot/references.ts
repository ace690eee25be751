/**
 * Cross-reference checks over a resource set, the way Envoy will see it: a route naming a
 * cluster that is not in the set (Envoy rejects an inline one: `unknown cluster`), an EDS
 * cluster with no `ClusterLoadAssignment` (it warms for ever), a listener asking RDS for a
 * route configuration that is not there (the listener warms for ever). The resources are
 * read in canonical JSON (normalised by decoding the packed bytes), so camelCase input is
 * covered too.
 */
import { findMessageType } from '../xds/protos.js';
import { toJson } from '../xds/json.js';
import type { Problem } from '../util/problems.js';
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  messageNameOf,
} from '../xds/type-urls.js';
import type { NamedResource, PackedSet } from '../core/snapshot.js';

export interface ReferenceReport {
  /** Envoy would reject the set (NACK). */
  errors: Problem[];
  /** Envoy would accept it but wait for ever (warming). */
  warnings: Problem[];
}

type Json = Record<string, unknown>;

function decoded(resource: NamedResource): Json {
  const type = findMessageType(messageNameOf(resource.typeUrl) ?? '');
  if (!type) return {};
  return toJson(type, type.decode(resource.value)) as Json;
}

const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});

/** Every cluster a route configuration names, with the path where it is named. */
function routeClusters(routeConfig: Json, path: string): { cluster: string; path: string }[] {
  const out: { cluster: string; path: string }[] = [];
  arr(routeConfig.virtual_hosts).forEach((vh, v) =>
    arr(vh.routes).forEach((route, r) => {
      const action = obj(route.route);
      const at = `${path ? `${path}.` : ''}virtual_hosts[${v}].routes[${r}].route`;
      if (typeof action.cluster === 'string')
        out.push({ cluster: action.cluster, path: `${at}.cluster` });
      arr(obj(action.weighted_clusters).clusters).forEach((wc, w) => {
        if (typeof wc.name === 'string')
          out.push({ cluster: wc.name, path: `${at}.weighted_clusters.clusters[${w}].name` });
      });
    }),
  );
  return out;
}

/** The HTTP connection managers of a listener (and api_listener), with their paths. */
function connectionManagers(listener: Json): { hcm: Json; path: string }[] {
  const out: { hcm: Json; path: string }[] = [];
  arr(listener.filter_chains).forEach((chain, c) =>
    arr(chain.filters).forEach((filter, f) => {
      const config = obj(filter.typed_config);
      if (String(config['@type']).endsWith('.HttpConnectionManager')) {
        out.push({ hcm: config, path: `filter_chains[${c}].filters[${f}].typed_config` });
      }
    }),
  );
  const api = obj(obj(listener.api_listener).api_listener);
  if (String(api['@type']).endsWith('.HttpConnectionManager'))
    out.push({ hcm: api, path: 'api_listener.api_listener' });
  return out;
}

export function checkReferences(
  set: PackedSet,
  where: (typeUrl: string, name: string) => string,
): ReferenceReport {
  const report: ReferenceReport = { errors: [], warnings: [] };
  const none = new Map<string, NamedResource>();
  const clusters = set.get(CLUSTER_TYPE) ?? none;
  const endpoints = set.get(ENDPOINT_TYPE) ?? none;
  const routes = set.get(ROUTE_TYPE) ?? none;
  const unknownCluster =
    (problems: Problem[], at: string) => (ref: { cluster: string; path: string }) => {
      if (!clusters.has(ref.cluster))
        problems.push({ path: `${at}.${ref.path}`, message: `unknown cluster '${ref.cluster}'` });
    };
  for (const listener of (set.get(LISTENER_TYPE) ?? none).values()) {
    const at = where(LISTENER_TYPE, listener.name);
    for (const { hcm, path } of connectionManagers(decoded(listener))) {
      if (hcm.route_config)
        routeClusters(obj(hcm.route_config), `${path}.route_config`).forEach(
          unknownCluster(report.errors, at),
        );
      const rdsName = obj(hcm.rds).route_config_name;
      if (typeof rdsName === 'string' && !routes.has(rdsName)) {
        report.warnings.push({
          path: `${at}.${path}.rds.route_config_name`,
          message: `no route configuration "${rdsName}" in the set: the listener will warm until one is served`,
        });
      }
    }
  }
  for (const route of routes.values()) {
    // Envoy does not check RDS routes' clusters by default (validate_clusters is false), so
    // a missing one is a 503 at request time, not a NACK: a warning.
    routeClusters(decoded(route), '').forEach(
      unknownCluster(report.warnings, where(ROUTE_TYPE, route.name)),
    );
  }
  for (const cluster of clusters.values()) {
    const json = decoded(cluster);
    if (json.type !== 'EDS') continue;
    const service = obj(json.eds_cluster_config).service_name;
    const name = typeof service === 'string' && service !== '' ? service : cluster.name;
    if (!endpoints.has(name)) {
      report.warnings.push({
        path: where(CLUSTER_TYPE, cluster.name),
        message: `EDS cluster without a ClusterLoadAssignment "${name}" in the set: it will warm until one is served`,
      });
    }
  }
  return report;
}
