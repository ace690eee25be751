/**
 * The one validation step every source of resources goes through — resource files, the
 * `resources` option, the control API and the library: a set is packed against Envoy's
 * protos once and its cross-references are checked (references.ts). The store installs the
 * packed value as it is; nothing downstream parses the raw input again.
 */
import type { PackedSet } from '../core/snapshot.js';
import { parseTypeName, TYPE_NAME_HINT } from '../core/types/registry.js';
import { isObject } from '../util/guards.js';
import type { Problem, Result } from '../util/problems.js';
import { parseNodeMatch, type NodeMatch } from './node-match.js';
import { checkReferences, type ReferenceReport } from './references.js';
import { packResources, pinResources } from './resource-set.js';

export const DEFAULT_SET = 'default';

/** A resource set as written: Envoy resources in canonical JSON, for some proxies or all. */
export interface ResourceSetSpec {
  name: string;
  /** Which proxies get this set; undefined: every proxy. */
  match?: NodeMatch;
  resources: readonly unknown[];
  /**
   * The version to serve each type with (type name → version: `CDS`, a type URL…), on every
   * install of the set: at start, from the API, the library, a file's reload. A captured
   * config's versions are written here by `--keep-versions`. Types not named get the push's
   * version, as istiod's.
   */
  versions?: Readonly<Record<string, string>>;
  /**
   * Delta xDS: the version each resource is sent with (type name → resource name → version).
   * Resources not named are sent as istiod sends them: unversioned (or with their content hash
   * under `deltaResourceVersions`).
   */
  resourceVersions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A set's pinned versions, as validated: by type URL (and, for resources, by name). */
export interface Pins {
  readonly versions: ReadonlyMap<string, string>;
  readonly resourceVersions: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export const NO_PINS: Pins = { versions: new Map(), resourceVersions: new Map() };

/** A set that passed validation, packed and ready to install. */
export interface ValidatedSet {
  readonly name: string;
  readonly match: NodeMatch | undefined;
  /** The resources, packed once; the store serves these bytes. */
  readonly packed: PackedSet;
  /**
   * What Envoy will make of the set's cross-references: errors it will NACK, warnings it
   * will warm on for ever. Paths are those of the input the set came from.
   */
  readonly references: ReferenceReport;
  /** The versions it is served with, by type URL (see `ResourceSetSpec.versions`). */
  readonly versions: ReadonlyMap<string, string>;
  /** Delta resource versions, by type URL then name (see `ResourceSetSpec.resourceVersions`). */
  readonly resourceVersions: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** Packs one set and checks its references; paths are `resources[i]…`, as in the input. */
export function validateSet(spec: ResourceSetSpec): Result<ValidatedSet> {
  if (!Array.isArray(spec.resources)) {
    return {
      ok: false,
      problems: [{ path: 'resources', message: 'expected a list of resources' }],
    };
  }
  const packed = packResources(spec.resources);
  const pins = readPins(
    spec.versions,
    spec.resourceVersions,
    packed.ok ? packed.value.set : undefined,
  );
  if (!packed.ok)
    return pins.ok ? packed : { ok: false, problems: [...pins.problems, ...packed.problems] };
  if (!pins.ok) return pins;
  const { set, indexOf } = packed.value;
  const where = (typeUrl: string, name: string) => `resources[${indexOf(typeUrl, name) ?? '?'}]`;
  const references = checkReferences(set, where);
  const { versions, resourceVersions } = pins.value;
  const value = { name: spec.name, match: spec.match, references, versions, resourceVersions };
  return { ok: true, value: { ...value, packed: pinResources(set, resourceVersions) } };
}

/**
 * Both pin fields checked at once, every problem with its path: `versions` is
 * `{ <type>: <version> }`, `resourceVersions` is `{ <type>: { <resource name>: <version> } }`,
 * and a resource pinned must be one of the set's (when it packed).
 */
export function readPins(
  versions: unknown,
  resourceVersions: unknown,
  packed?: PackedSet,
): Result<Pins> {
  const problems: Problem[] = [];
  const types = readVersions(versions, 'versions', problems);
  const byResource = new Map<string, ReadonlyMap<string, string>>();
  if (resourceVersions !== undefined && !isObject(resourceVersions)) {
    problems.push({
      path: 'resourceVersions',
      message: 'expected { <type>: { <resource name>: <version> } }',
    });
  } else if (resourceVersions !== undefined) {
    for (const [name, byName] of Object.entries(resourceVersions)) {
      const path = `resourceVersions.${name}`;
      const typeUrl = parseTypeName(name);
      if (!typeUrl) {
        problems.push({ path, message: `unknown resource type (expected ${TYPE_NAME_HINT})` });
        continue;
      }
      if (!isObject(byName)) {
        problems.push({ path, message: 'expected { <resource name>: <version> }' });
        continue;
      }
      const pinned = new Map<string, string>();
      for (const [resource, version] of Object.entries(byName)) {
        const at = `${path}.${resource}`;
        if (typeof version !== 'string' || version === '')
          problems.push({ path: at, message: 'expected a non-empty version string' });
        else if (packed && !packed.get(typeUrl)?.has(resource))
          problems.push({
            path: at,
            message: `the set has no ${name} resource named "${resource}"`,
          });
        else pinned.set(resource, version);
      }
      byResource.set(typeUrl, pinned);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { versions: types, resourceVersions: byResource } };
}

/** `{ CDS: "v1", LDS: "v1" }` → type URL → version; a name not read or a version not a string is a problem. */
function readVersions(raw: unknown, path: string, problems: Problem[]): Map<string, string> {
  const versions = new Map<string, string>();
  if (raw === undefined) return versions;
  if (!isObject(raw)) {
    problems.push({ path, message: 'expected { <type>: <version> }' });
    return versions;
  }
  for (const [name, version] of Object.entries(raw)) {
    const typeUrl = parseTypeName(name);
    if (!typeUrl)
      problems.push({
        path: `${path}.${name}`,
        message: `unknown resource type (expected ${TYPE_NAME_HINT})`,
      });
    else if (typeof version !== 'string' || version === '')
      problems.push({ path: `${path}.${name}`, message: 'expected a non-empty version string' });
    else versions.set(typeUrl, version);
  }
  return versions;
}

/**
 * Validates a whole list of sets (all or nothing): each set's shape, selector and resources,
 * unique names, at least one set. With several sets a set's problems are prefixed
 * `sets[i] (name).`; a single set's read as its resources' own (`resources[0].name`).
 */
export function validateSets(specs: readonly unknown[]): Result<ValidatedSet[]> {
  const problems: Problem[] = [];
  const names = new Set<string>();
  const sets = specs.flatMap((value, i) => {
    const spec = readSpec(value, `sets[${i}]`, problems);
    if (!spec) return [];
    if (names.has(spec.name))
      problems.push({ path: `sets[${i}].name`, message: `duplicate set "${spec.name}"` });
    names.add(spec.name);
    const prefix = specs.length > 1 ? `sets[${i}] (${spec.name}).` : '';
    const at = (p: Problem) => ({ path: prefix + p.path, message: p.message });
    const validated = validateSet(spec);
    if (!validated.ok) problems.push(...validated.problems.map(at));
    return validated.ok ? [relocate(validated.value, at)] : [];
  });
  if (specs.length === 0)
    problems.push({ path: 'sets', message: 'expected at least one resource set' });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: sets };
}

/** A set as JSON (an API body, a library call from plain JavaScript): name, match, resources, pins. */
function readSpec(value: unknown, path: string, problems: Problem[]): ResourceSetSpec | undefined {
  if (!isObject(value)) {
    problems.push({ path, message: 'expected a set: { name, match, resources }' });
    return undefined;
  }
  const before = problems.length;
  if (typeof value.name !== 'string' || value.name === '')
    problems.push({ path: `${path}.name`, message: 'expected a non-empty set name' });
  const match = parseNodeMatch(value.match, `${path}.match`, problems);
  if (problems.length > before) return undefined;
  const versions = value.versions as Record<string, string> | undefined;
  const resourceVersions = value.resourceVersions as ResourceSetSpec['resourceVersions'];
  const resources = value.resources as unknown[];
  return { name: value.name as string, match, resources, versions, resourceVersions };
}

/**
 * The reference problems of sets accepted anyway (through the API, the library, the
 * `resources` option), as warnings: what Envoy will NACK first, then what it will warm on.
 * Such sets are served all the same, since pushing a configuration Envoy rejects is how a
 * test or a class shows a NACK.
 */
export function referenceWarnings(sets: readonly ValidatedSet[]): Problem[] {
  const nacks = sets.flatMap((s) => s.references.errors);
  const warming = sets.flatMap((s) => s.references.warnings);
  return [
    ...nacks.map((p) => ({
      path: p.path,
      message: `${p.message}: Envoy rejects this (NACK) whenever it is sent`,
    })),
    ...warming,
  ];
}

/** The same set with its reference problems moved to other paths (a file and line, a prefix). */
export function relocate(set: ValidatedSet, at: (problem: Problem) => Problem): ValidatedSet {
  const { errors, warnings } = set.references;
  return { ...set, references: { errors: errors.map(at), warnings: warnings.map(at) } };
}
