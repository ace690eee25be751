/**
 * A captured Envoy `config_dump` → a resource set the mock serves: the dynamic resources the
 * proxy had received (dump-sections.ts), rewritten as the user chose so they can work on this
 * machine (rewrite-*.ts), then through the one validation every source of resources takes
 * (snapshot/validated-set.ts), with problems reported at their path in the dump. References
 * Envoy would reject refuse the import, as they refuse a resource file.
 */
import { readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');
import { shortTypeName } from '../core/types/registry.js';
import {
  DEFAULT_SET,
  validateSet,
  type ResourceSetSpec,
  type ValidatedSet,
} from '../snapshot/validated-set.js';
import type { Problem, Result } from '../util/problems.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../xds/type-urls.js';
import {
  dumpConfigs,
  readDumpSections,
  type DumpContents,
  type DumpedResource,
} from './dump-sections.js';
import { child } from './json-walk.js';
import { emptyReport, type ImportReport } from './report.js';
import { rewriteCluster } from './rewrite-clusters.js';
import { rewriteAssignment, type EndpointRewrite } from './rewrite-endpoints.js';
import { pruneUnknownExtensions } from './rewrite-extensions.js';
import { duplicateAddresses, rewriteListener, type ListenerRewrite } from './rewrite-listeners.js';
import { makeSecrets, newSecretNames, rewriteSds, type SdsRewrite } from './rewrite-sds.js';

export interface ImportOptions {
  endpoints: EndpointRewrite;
  listeners: ListenerRewrite;
  sds: SdsRewrite;
  /** ORIGINAL_DST clusters → STATIC at the upstream (needs `endpoints.upstream` or a map entry). */
  originalDstToUpstream: boolean;
  /** Drop filters and per-route configs of extensions not in this Envoy's protos. */
  dropUnknownExtensions: boolean;
  /** Serve each type at the version the proxy last accepted, until it changes. */
  keepVersions: boolean;
}

export const DEFAULT_IMPORT_OPTIONS: Readonly<ImportOptions> = Object.freeze<ImportOptions>({
  endpoints: {},
  listeners: {
    loopback: false,
    portOffset: 0,
    ports: new Map<number, number>(),
    bindVirtual: false,
  },
  sds: { mode: 'keep' },
  originalDstToUpstream: false,
  dropUnknownExtensions: false,
  keepVersions: false,
});

export interface ImportedDump {
  /** The set as a resource file or the `resources` option takes it. */
  spec: ResourceSetSpec;
  /** Where each resource of `spec` came from in the dump. */
  origins: string[];
  validated: ValidatedSet;
  report: ImportReport;
}

/** Reads a dump file: JSON, or YAML (`istioctl proxy-config all -o yaml`). */
export function readDumpFile(path: string): Result<unknown> {
  try {
    return { ok: true, value: yaml().parse(readFileSync(path, 'utf8')) as unknown };
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code ??
      (err instanceof Error ? err.message.split('\n')[0] : String(err));
    return { ok: false, problems: [{ path, message: `cannot read a config_dump: ${reason}` }] };
  }
}

export function importConfigDump(
  dump: unknown,
  partial: Partial<ImportOptions> = {},
): Result<ImportedDump> {
  const options = { ...DEFAULT_IMPORT_OPTIONS, ...partial };
  const configs = dumpConfigs(dump);
  if (!configs) {
    const message = 'expected a config_dump: { "configs": [ ... ] }';
    return { ok: false, problems: [{ path: '', message }] };
  }
  return importContents(readDumpSections(structuredClone(configs)), options);
}

/**
 * Resources already taken out of their source (a dump's sections, or what istiod sent a pod:
 * generate/), rewritten and validated as an import does; problems name each `origin`.
 * The resources are rewritten in place.
 */
export function importContents(
  sections: DumpContents,
  partial: Partial<ImportOptions> = {},
): Result<ImportedDump> {
  const options = { ...DEFAULT_IMPORT_OPTIONS, ...partial };
  const report = emptyReport();
  report.notImported.push(...sections.notImported);
  report.inFlight.push(...sections.inFlight);
  const problems: Problem[] = [];
  const resources = rewriteAll(sections, options, report, problems);
  if (problems.length > 0) return { ok: false, problems };
  if (options.keepVersions) report.versions = sections.versions;
  return validate(resources, report);
}

/** The resources to serve, each rewrite applied (in place, on the dump's copy). */
function rewriteAll(
  sections: DumpContents,
  options: ImportOptions,
  report: ImportReport,
  problems: Problem[],
): DumpedResource[] {
  const prune = (r: DumpedResource) => {
    const found = pruneUnknownExtensions(
      r.resource,
      r.origin,
      options.dropUnknownExtensions,
      report,
    );
    problems.push(...found);
    return !found.some((p) => p.path === r.origin);
  };
  const resources = sections.resources.filter(prune);
  const edsNames = rewriteClusters(resources, options, report);
  const endpoints = keptAssignments(sections.endpoints, edsNames, report).filter(prune);
  for (const { resource, origin } of endpoints) {
    const cluster = String(resource.cluster_name);
    rewriteAssignment(resource, cluster, origin, options.endpoints, report);
  }
  const listeners = ofType(resources, LISTENER_TYPE);
  for (const l of listeners) rewriteListener(l.resource, l.origin, options.listeners, report);
  problems.push(
    ...duplicateAddresses(listeners.map((l) => ({ listener: l.resource, path: l.origin }))),
  );
  const all = [...resources, ...endpoints];
  const names = newSecretNames();
  for (const r of all) rewriteSds(r.resource, r.origin, options.sds, names, report);
  if (options.sds.mode === 'ca') {
    const secrets = makeSecrets(names, options.sds.files);
    all.push(...secrets.map((resource) => ({ origin: '(--sds ca)', resource })));
  }
  return all;
}

/** Rewrites the clusters; returns the names EDS assignments come under (service name or name). */
function rewriteClusters(
  resources: DumpedResource[],
  options: ImportOptions,
  report: ImportReport,
): Set<string> {
  const eds = new Set<string>();
  for (const { resource, origin } of ofType(resources, CLUSTER_TYPE)) {
    rewriteCluster(
      resource,
      origin,
      { ...options.endpoints, originalDstToUpstream: options.originalDstToUpstream },
      report,
    );
    if (resource.type !== 'EDS') continue;
    const service = child(resource, 'eds_cluster_config')?.service_name;
    eds.add(typeof service === 'string' && service !== '' ? service : String(resource.name));
  }
  return eds;
}

/** The dump lists an assignment for every cluster; only EDS clusters are sent theirs. */
function keptAssignments(
  endpoints: DumpedResource[],
  edsNames: Set<string>,
  report: ImportReport,
): DumpedResource[] {
  const kept = endpoints.filter((e) => edsNames.has(String(e.resource.cluster_name)));
  const left = endpoints.filter((e) => !kept.includes(e));
  const first = left[0];
  if (first)
    report.notImported.push({
      path: first.origin.replace(/\[\d+\]\.endpoint_config$/, ''),
      message: `${left.length} assignment(s) of clusters that are not EDS (they carry their endpoints inline): not served apart`,
    });
  return kept;
}

function ofType(resources: DumpedResource[], typeUrl: string): DumpedResource[] {
  return resources.filter((r) => r.resource['@type'] === typeUrl);
}

function validate(all: DumpedResource[], report: ImportReport): Result<ImportedDump> {
  const origins = all.map((r) => r.origin);
  const at = (p: Problem): Problem => {
    const m = /^resources\[(\d+)\](.*)$/.exec(p.path);
    const origin = m ? origins[Number(m[1])] : undefined;
    return origin !== undefined ? { path: `${origin}${m?.[2] ?? ''}`, message: p.message } : p;
  };
  const versions = Object.keys(report.versions).length > 0 ? report.versions : undefined;
  const spec: ResourceSetSpec = {
    name: DEFAULT_SET,
    resources: all.map((r) => r.resource),
    ...(versions ? { versions } : {}),
  };
  const validated = validateSet(spec);
  if (!validated.ok) return { ok: false, problems: validated.problems.map(at) };
  const { errors, warnings } = validated.value.references;
  if (errors.length > 0) return { ok: false, problems: errors.map(at) };
  report.cannotWork.push(...warnings.map(at));
  for (const [typeUrl, byName] of validated.value.packed)
    report.counts[shortTypeName(typeUrl)] = byName.size;
  return { ok: true, value: { spec, origins, validated: validated.value, report } };
}
