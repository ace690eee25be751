/**
 * Reading an Envoy admin `/config_dump` (with or without `?include_eds`; the same JSON
 * istioctl prints for `proxy-config all -o json`): which resources the proxy had received
 * dynamically, and a note for everything else. Each section is an `envoy.admin.v3.*ConfigDump`
 * message under `configs[]`; its fields are read by their proto names, which is how Envoy
 * 1.36–1.40 print them. Which section holds which type, and the fields of each, come from
 * the type's descriptor (`configDump`, core/types/); what the import does with them is here.
 */
import { configDumpType } from '../core/types/registry.js';
import type { ConfigDumpSection, ResourceType } from '../core/types/resource-type.js';
import { isObject, objectsIn } from '../util/guards.js';
import type { Problem } from '../util/problems.js';
import { ADMIN_TYPE_PREFIX, ENDPOINT_TYPE, SECRET_TYPE } from '../xds/type-urls.js';

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
  /** The version the proxy last accepted, per type's short name (`CDS`, `LDS`, …). */
  versions: Record<string, string>;
  /** Sections and entries not served, and why. */
  notImported: Problem[];
  /** Warming, draining and rejected entries, and which one was kept. */
  inFlight: Problem[];
}

/** The `configs` of a dump: `{ configs: [...] }` as Envoy and istioctl print it, or the bare list. */
export function dumpConfigs(dump: unknown): Json[] | undefined {
  if (Array.isArray(dump)) return objectsIn(dump);
  if (isObject(dump) && Array.isArray(dump.configs)) return objectsIn(dump.configs);
  return undefined;
}

/** Each section is read as its type's descriptor shapes it (core/types/), the bootstrap apart. */
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
    const name = type.startsWith(ADMIN_TYPE_PREFIX) ? type.slice(ADMIN_TYPE_PREFIX.length) : '';
    const known = configDumpType(name);
    if (known) readTypeSection(known, section, path, out);
    else if (name === 'BootstrapConfigDump') readBootstrap(section, path, out);
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

/** One type's section: its static, dynamic and warming entries, and the version it was at. */
function readTypeSection(type: ResourceType, section: Json, path: string, out: DumpContents) {
  const dump = type.configDump;
  if (!dump) return;
  if (type.typeUrl === SECRET_TYPE) return skipSecrets(dump, section, path, out);
  if (dump.inline && objectsIn(section[dump.inline.list]).length > 0)
    out.notImported.push({
      path: `${path}.${dump.inline.list}`,
      message: `${dump.inline.note}: not served apart`,
    });
  if (dump.versioned && typeof section.version_info === 'string')
    out.versions[type.shortName] = section.version_info;
  if (dump.staticList)
    readStatic(section[dump.staticList], dump.entry, `${path}.${dump.staticList}`, out);
  const entries = objectsIn(section[dump.list]);
  const at = (i: number) => `${path}.${dump.list}[${i}]`;
  if (dump.activeState) entries.forEach((entry, i) => readStates(entry, dump, at(i), out));
  else if (dump.grouped)
    entries.forEach((group, i) =>
      objectsIn(group[dump.entry]).forEach((r, j) => take(r, `${at(i)}.${dump.entry}[${j}]`, out)),
    );
  else {
    // The dump lists an assignment for every cluster: candidates, kept for EDS clusters only.
    const keep = type.typeUrl === ENDPOINT_TYPE ? candidate : take;
    entries.forEach((entry, i) => {
      keep(entry[dump.entry], `${at(i)}.${dump.entry}`, out);
      if (dump.errorState) reportError(entry.error_state, at(i), out);
    });
  }
  if (dump.warmingList) readWarming(section, entries, dump, `${path}.${dump.warmingList}`, out);
  if (!dump.versioned) latestVersion(entries, type.shortName, out);
}

/** Secrets are never served from a dump: the import's own come from `--sds`. */
function skipSecrets(dump: ConfigDumpSection, section: Json, path: string, out: DumpContents) {
  const count = [dump.staticList, dump.list, dump.warmingList]
    .map((k) => (k === undefined ? 0 : objectsIn(section[k]).length))
    .reduce((a, b) => a + b, 0);
  if (count > 0)
    out.notImported.push({
      path,
      message: `${count} ${dump.entry}(s): SDS is pilot-agent's, and the dump redacts private keys: not served (see --sds)`,
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

/** Warming entries: served only where no active version of the same name was. */
function readWarming(
  section: Json,
  entries: readonly Json[],
  dump: ConfigDumpSection,
  path: string,
  out: DumpContents,
): void {
  const served = entries.map((e) => e[dump.entry]).filter(isResource);
  const active = new Set(served.map((r) => nameIn(r) ?? ''));
  objectsIn(section[dump.warmingList ?? '']).forEach((entry, i) =>
    keepIfAlone(entry[dump.entry], `${path}[${i}].${dump.entry}`, active, dump.entry, out),
  );
}

/** An entry in states (listeners): the active version served, else the warming one. */
function readStates(entry: Json, dump: ConfigDumpSection, at: string, out: DumpContents): void {
  const kind = dump.entry;
  const name = typeof entry.name === 'string' ? entry.name : '?';
  const state = (key: string) => (isObject(entry[key]) ? (entry[key] as Json) : undefined);
  const [active, warming, draining] = ['active_state', 'warming_state', 'draining_state'].map(
    state,
  );
  if (active) take(active[kind], `${at}.active_state.${kind}`, out);
  else if (warming) {
    take(warming[kind], `${at}.warming_state.${kind}`, out);
    out.inFlight.push({
      path: `${at}.warming_state`,
      message: `${kind} ${name} was warming (no active version): the warming one is served`,
    });
  }
  if (active && warming)
    out.inFlight.push({
      path: `${at}.warming_state`,
      message: `${kind} ${name}: a newer version was warming; the active one is served`,
    });
  if (draining)
    out.inFlight.push({
      path: `${at}.draining_state`,
      message:
        active || warming
          ? `${kind} ${name}: an older version was draining; not served`
          : `${kind} ${name} was draining (being removed): not served`,
    });
  if (dump.errorState) reportError(entry.error_state, at, out);
}

/** An endpoint assignment, kept aside until the clusters say which are wanted. */
function candidate(value: unknown, origin: string, out: DumpContents): void {
  if (isObject(value)) out.endpoints.push({ origin, resource: value });
}

const isResource = (value: unknown): value is Json =>
  isObject(value) && typeof value['@type'] === 'string';

/** Adds a resource (an object with `@type`); false when the entry holds none. */
function take(value: unknown, origin: string, out: DumpContents): boolean {
  if (!isResource(value)) {
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
