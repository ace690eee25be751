/**
 * Reading an Envoy admin `/config_dump` (with or without `?include_eds`; the same JSON
 * istioctl prints for `proxy-config all -o json`): which resources the proxy had received
 * dynamically, and a note for everything else. Each section is an `envoy.admin.v3.*ConfigDump`
 * message under `configs[]`; its fields are read by their proto names, which is how Envoy
 * 1.36–1.40 print them.
 */
import { isObject, objectsIn } from '../util/guards.js';
import type { Problem } from '../util/problems.js';
import { ADMIN_TYPE_PREFIX } from '../xds/type-urls.js';

type Json = Record<string, unknown>;

/** One resource taken from the dump, and where it was (a JSON path inside the dump). */
export interface DumpedResource {
  origin: string;
  resource: Json;
}

export interface DumpContents {
  /** What the proxy had received dynamically: served. */
  resources: DumpedResource[];
  /** Candidate endpoint assignments: kept only for the EDS clusters imported (import-dump.ts). */
  endpoints: DumpedResource[];
  /** The version the proxy last accepted, per type (`CDS`, `LDS`, `RDS`, `EDS`, `SRDS`, `ECDS`). */
  versions: Record<string, string>;
  /** Sections and entries not served, and why. */
  notImported: Problem[];
  /** Warming, draining and rejected entries, and which one was kept. */
  inFlight: Problem[];
}

type SectionReader = (section: Json, path: string, out: DumpContents) => void;

const SECTIONS: Record<string, SectionReader> = {
  BootstrapConfigDump: readBootstrap,
  ClustersConfigDump: readClusters,
  ListenersConfigDump: readListeners,
  RoutesConfigDump: readRoutes,
  EndpointsConfigDump: readEndpoints,
  ScopedRoutesConfigDump: readScopedRoutes,
  SecretsConfigDump: readSecrets,
  EcdsConfigDump: readEcds,
};

/** The `configs` of a dump: `{ configs: [...] }` as Envoy and istioctl print it, or the bare list. */
export function dumpConfigs(dump: unknown): Json[] | undefined {
  if (Array.isArray(dump)) return objectsIn(dump);
  if (isObject(dump) && Array.isArray(dump.configs)) return objectsIn(dump.configs);
  return undefined;
}

export function readDumpSections(configs: readonly Json[]): DumpContents {
  const out: DumpContents = {
    resources: [],
    endpoints: [],
    versions: {},
    notImported: [],
    inFlight: [],
  };
  configs.forEach((section, i) => {
    const path = `configs[${i}]`;
    const type = typeof section['@type'] === 'string' ? section['@type'] : '';
    const reader = type.startsWith(ADMIN_TYPE_PREFIX)
      ? SECTIONS[type.slice(ADMIN_TYPE_PREFIX.length)]
      : undefined;
    if (reader) reader(section, path, out);
    else
      out.notImported.push({ path, message: `section ${type || '(no @type)'}: not a known one` });
  });
  return out;
}

function readBootstrap(section: Json, path: string, out: DumpContents): void {
  const bootstrap = isObject(section.bootstrap) ? section.bootstrap : {};
  const node =
    isObject(bootstrap.node) && typeof bootstrap.node.id === 'string' ? bootstrap.node.id : '?';
  out.notImported.push({
    path: `${path}.bootstrap`,
    message: `the bootstrap (node ${node}) is the proxy's own file, not xDS: not served (mock-istiod bootstrap writes one)`,
  });
}

function readStatic(list: unknown, field: string, path: string, out: DumpContents): void {
  const entries = objectsIn(list);
  if (entries.length === 0) return;
  const names = entries.map((e) => nameIn(e[field]) ?? '?');
  out.notImported.push({
    path,
    message: `${entries.length} static resource(s) from the bootstrap, not served: ${names.join(', ')}`,
  });
}

function readClusters(section: Json, path: string, out: DumpContents): void {
  if (typeof section.version_info === 'string') out.versions.CDS = section.version_info;
  readStatic(section.static_clusters, 'cluster', `${path}.static_clusters`, out);
  const active = new Set<string>();
  objectsIn(section.dynamic_active_clusters).forEach((entry, i) => {
    const at = `${path}.dynamic_active_clusters[${i}]`;
    if (take(entry.cluster, `${at}.cluster`, out)) active.add(nameIn(entry.cluster) ?? '');
    reportError(entry.error_state, at, out);
  });
  objectsIn(section.dynamic_warming_clusters).forEach((entry, i) => {
    const at = `${path}.dynamic_warming_clusters[${i}]`;
    keepIfAlone(entry.cluster, `${at}.cluster`, active, 'cluster', out);
  });
}

function readListeners(section: Json, path: string, out: DumpContents): void {
  if (typeof section.version_info === 'string') out.versions.LDS = section.version_info;
  readStatic(section.static_listeners, 'listener', `${path}.static_listeners`, out);
  objectsIn(section.dynamic_listeners).forEach((entry, i) => {
    const at = `${path}.dynamic_listeners[${i}]`;
    const name = typeof entry.name === 'string' ? entry.name : '?';
    const state = (key: string) => (isObject(entry[key]) ? (entry[key] as Json) : undefined);
    const [active, warming, draining] = ['active_state', 'warming_state', 'draining_state'].map(
      state,
    );
    if (active) take(active.listener, `${at}.active_state.listener`, out);
    else if (warming) {
      take(warming.listener, `${at}.warming_state.listener`, out);
      out.inFlight.push({
        path: `${at}.warming_state`,
        message: `listener ${name} was warming (no active version): the warming one is served`,
      });
    }
    if (active && warming)
      out.inFlight.push({
        path: `${at}.warming_state`,
        message: `listener ${name}: a newer version was warming; the active one is served`,
      });
    if (draining)
      out.inFlight.push({
        path: `${at}.draining_state`,
        message:
          active || warming
            ? `listener ${name}: an older version was draining; not served`
            : `listener ${name} was draining (being removed): not served`,
      });
    reportError(entry.error_state, at, out);
  });
}

function readRoutes(section: Json, path: string, out: DumpContents): void {
  readStatic(section.static_route_configs, 'route_config', `${path}.static_route_configs`, out);
  const entries = objectsIn(section.dynamic_route_configs);
  entries.forEach((entry, i) =>
    take(entry.route_config, `${path}.dynamic_route_configs[${i}].route_config`, out),
  );
  latestVersion(entries, 'RDS', out);
}

function readEndpoints(section: Json, path: string, out: DumpContents): void {
  readStatic(
    section.static_endpoint_configs,
    'endpoint_config',
    `${path}.static_endpoint_configs`,
    out,
  );
  const entries = objectsIn(section.dynamic_endpoint_configs);
  entries.forEach((entry, i) => {
    const origin = `${path}.dynamic_endpoint_configs[${i}].endpoint_config`;
    if (isObject(entry.endpoint_config))
      out.endpoints.push({ origin, resource: entry.endpoint_config });
  });
  latestVersion(entries, 'EDS', out);
}

function readScopedRoutes(section: Json, path: string, out: DumpContents): void {
  if (objectsIn(section.inline_scoped_route_configs).length > 0)
    out.notImported.push({
      path: `${path}.inline_scoped_route_configs`,
      message: 'inline scopes live inside their listener, which carries them: not served apart',
    });
  const groups = objectsIn(section.dynamic_scoped_route_configs);
  groups.forEach((group, i) => {
    objectsIn(group.scoped_route_configs).forEach((scope, j) =>
      take(scope, `${path}.dynamic_scoped_route_configs[${i}].scoped_route_configs[${j}]`, out),
    );
  });
  latestVersion(groups, 'SRDS', out);
}

function readSecrets(section: Json, path: string, out: DumpContents): void {
  const count = ['static_secrets', 'dynamic_active_secrets', 'dynamic_warming_secrets']
    .map((k) => objectsIn(section[k]).length)
    .reduce((a, b) => a + b, 0);
  if (count > 0)
    out.notImported.push({
      path,
      message: `${count} secret(s): SDS is pilot-agent's, and the dump redacts private keys: not served (see --sds)`,
    });
}

function readEcds(section: Json, path: string, out: DumpContents): void {
  const entries = objectsIn(section.ecds_filters);
  entries.forEach((entry, i) =>
    take(entry.ecds_filter, `${path}.ecds_filters[${i}].ecds_filter`, out),
  );
  latestVersion(entries, 'ECDS', out);
}

/** Adds a resource (an object with `@type`); false when the entry holds none. */
function take(value: unknown, origin: string, out: DumpContents): boolean {
  if (!isObject(value) || typeof value['@type'] !== 'string') {
    out.notImported.push({ path: origin, message: 'expected a resource with "@type"' });
    return false;
  }
  out.resources.push({ origin, resource: value });
  return true;
}

function keepIfAlone(
  value: unknown,
  origin: string,
  active: Set<string>,
  kind: string,
  out: DumpContents,
) {
  const name = nameIn(value) ?? '?';
  if (active.has(name)) {
    out.inFlight.push({
      path: origin,
      message: `${kind} ${name}: a newer version was warming; the active one is served`,
    });
    return;
  }
  if (take(value, origin, out))
    out.inFlight.push({
      path: origin,
      message: `${kind} ${name} was warming (no active version): the warming one is served`,
    });
}

/** An update the proxy rejected (`error_state`): reported with Envoy's own words. */
function reportError(state: unknown, path: string, out: DumpContents): void {
  if (!isObject(state)) return;
  const details = typeof state.details === 'string' ? state.details : 'no details';
  out.inFlight.push({
    path: `${path}.error_state`,
    message: `the proxy rejected an update of this resource (${details}); the version it kept is served`,
  });
}

/** The version of the entry updated last: the version the proxy holds for the whole type. */
function latestVersion(entries: readonly Json[], type: string, out: DumpContents): void {
  let best: { at: string; version: string } | undefined;
  for (const entry of entries) {
    const at = typeof entry.last_updated === 'string' ? entry.last_updated : '';
    if (typeof entry.version_info !== 'string' || entry.version_info === '') continue;
    if (!best || at > best.at) best = { at, version: entry.version_info };
  }
  if (best) out.versions[type] = best.version;
}

function nameIn(resource: unknown): string | undefined {
  if (!isObject(resource)) return undefined;
  const name = resource.name ?? resource.cluster_name;
  return typeof name === 'string' ? name : undefined;
}
