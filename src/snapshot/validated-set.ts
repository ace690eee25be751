/**
 * The one validation step every source of resources goes through — resource files, the
 * `resources` option, the control API and the library: a set is packed against Envoy's
 * protos once and its cross-references are checked (references.ts). The store installs the
 * packed value as it is; nothing downstream parses the raw input again.
 */
import type { PackedSet } from '../core/snapshot.js';
import { parseTypeName } from '../core/types/registry.js';
import { isObject } from '../util/guards.js';
import type { Problem, Result } from '../util/problems.js';
import { parseNodeMatch, type NodeMatch } from './node-match.js';
import { checkReferences, type ReferenceReport } from './references.js';
import { packResources } from './resource-set.js';

export const DEFAULT_SET = 'default';

/** A resource set as written: Envoy resources in canonical JSON, for some proxies or all. */
export interface ResourceSetSpec {
  name: string;
  /** Which proxies get this set; undefined: every proxy. */
  match?: NodeMatch;
  resources: readonly unknown[];
  /**
   * The version to serve each type with when the set is first installed (type name → version:
   * `CDS`, a type URL…), as a captured config had them (`--keep-versions`). A later change of a
   * type gets a new version as usual, so that it is pushed.
   */
  versions?: Readonly<Record<string, string>>;
}

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
  /** Versions kept from a captured config, by type URL (see `ResourceSetSpec.versions`). */
  readonly versions: ReadonlyMap<string, string>;
}

/** Packs one set and checks its references; paths are `resources[i]…`, as in the input. */
export function validateSet(spec: ResourceSetSpec): Result<ValidatedSet> {
  if (!Array.isArray(spec.resources)) {
    return {
      ok: false,
      problems: [{ path: 'resources', message: 'expected a list of resources' }],
    };
  }
  const versions = readVersions(spec.versions);
  if (!versions.ok) return versions;
  const packed = packResources(spec.resources);
  if (!packed.ok) return packed;
  const { set, indexOf } = packed.value;
  const where = (typeUrl: string, name: string) => `resources[${indexOf(typeUrl, name) ?? '?'}]`;
  const references = checkReferences(set, where);
  const value = { name: spec.name, match: spec.match, packed: set, references };
  return { ok: true, value: { ...value, versions: versions.value } };
}

/** `{ CDS: "v1", LDS: "v1" }` → type URL → version; a name not read or a version not a string is a problem. */
function readVersions(raw: unknown): Result<ReadonlyMap<string, string>> {
  const versions = new Map<string, string>();
  if (raw === undefined) return { ok: true, value: versions };
  if (!isObject(raw))
    return {
      ok: false,
      problems: [{ path: 'versions', message: 'expected { <type>: <version> }' }],
    };
  const problems: Problem[] = [];
  for (const [name, version] of Object.entries(raw)) {
    const typeUrl = parseTypeName(name);
    if (!typeUrl) problems.push({ path: `versions.${name}`, message: 'unknown resource type' });
    else if (typeof version !== 'string' || version === '')
      problems.push({ path: `versions.${name}`, message: 'expected a non-empty version string' });
    else versions.set(typeUrl, version);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: versions };
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

/** A set as JSON (an API body, a library call from plain JavaScript): name, match, resources. */
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
  return { name: value.name as string, match, resources: value.resources as unknown[], versions };
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
