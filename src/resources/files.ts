/**
 * Resource sets from files: Envoy resources in canonical proto3 JSON (with `@type`), in
 * YAML or JSON, from one file or every `.yaml` / `.yml` / `.json` file of a directory
 * (sorted by name, not recursive). A document is one of:
 *
 * - a list of resources, or one resource (an object with `@type`);
 * - `{ resources: [...] }` (Envoy's own file format has this shape too);
 * - a set for some proxies: `{ name, match: { nodeId, cluster, metadata }, resources }`;
 * - `{ sets: [ <set>, ... ] }`.
 *
 * Resources outside a named set go to the `default` set. Every problem names its file and
 * the path inside it.
 */
import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseNodeMatch, type NodeMatch } from '../snapshot/node-match.js';
import { DEFAULT_SET, type ResourceSetSpec } from '../snapshot/validated-set.js';
import { isObject } from '../util/guards.js';
import { readDocuments } from './file-text.js';
import type { Problem, Result } from '../util/problems.js';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Where each resource of a set came from, for messages. */
export interface LoadedSet extends ResourceSetSpec {
  origins: string[];
}

export interface LoadedFiles {
  sets: LoadedSet[];
  files: string[];
  /** Files that could not be read or parsed, and documents of the wrong shape. */
  problems: Problem[];
}

/** The files a path stands for: itself, or the resource files of a directory. */
export function resourceFiles(path: string): Result<string[]> {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return { ok: false, problems: [{ path, message: 'no such file or directory' }] };
  }
  if (!stat.isDirectory()) return { ok: true, value: [path] };
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return { ok: false, problems: [{ path, message: `cannot list the directory: ${code}` }] };
  }
  const files = names
    .filter((name) => EXTENSIONS.has(extname(name)) && !name.startsWith('.'))
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0) {
    return {
      ok: false,
      problems: [{ path, message: 'the directory has no .yaml, .yml or .json file' }],
    };
  }
  return { ok: true, value: files };
}

export function loadResourceFiles(path: string): Result<LoadedFiles> {
  const listed = resourceFiles(path);
  if (!listed.ok) return listed;
  const problems: Problem[] = [];
  const sets = new Map<string, LoadedSet>();
  for (const file of listed.value) {
    const read = readDocuments(file);
    problems.push(...read.problems);
    for (const doc of read.docs) collect(doc.value, doc.where, sets, problems);
  }
  return { ok: true, value: { sets: [...sets.values()], files: listed.value, problems } };
}

function addTo(
  sets: Map<string, LoadedSet>,
  name: string,
  match: NodeMatch | undefined,
  resources: unknown[],
  origin: (i: number) => string,
): void {
  let set = sets.get(name);
  if (!set) sets.set(name, (set = { name, match, resources: [], origins: [] }));
  resources.forEach((r, i) => {
    (set.resources as unknown[]).push(r);
    set.origins.push(origin(i));
  });
}

function collect(
  value: unknown,
  where: string,
  sets: Map<string, LoadedSet>,
  problems: Problem[],
): void {
  if (Array.isArray(value))
    return addTo(sets, DEFAULT_SET, undefined, value, (i) => `${where} [${i}]`);
  if (typeof value !== 'object' || value === null) {
    problems.push({
      path: where.replace(/:$/, ''),
      message:
        'expected a list of resources, a resource with "@type", or an object with "resources" or "sets"',
    });
    return;
  }
  const doc = value as Record<string, unknown>;
  if ('@type' in doc) return addTo(sets, DEFAULT_SET, undefined, [doc], () => where);
  if (Array.isArray(doc.sets)) {
    doc.sets.forEach((set, i) => collectSet(set, `${where} sets[${i}]`, sets, problems));
    return;
  }
  collectSet(doc, where, sets, problems);
}

function collectSet(
  value: unknown,
  where: string,
  sets: Map<string, LoadedSet>,
  problems: Problem[],
): void {
  const doc = (value ?? {}) as Record<string, unknown>;
  const known = new Set([
    'name',
    'match',
    'resources',
    'version_info',
    'versions',
    'resourceVersions',
  ]);
  for (const key of Object.keys(doc)) {
    if (!known.has(key))
      problems.push({
        path: `${where} ${key}`,
        message: 'unknown field; a set has name, match, resources, versions and resourceVersions',
      });
  }
  if (!Array.isArray(doc.resources)) {
    problems.push({ path: `${where} resources`, message: 'expected a list of resources' });
    return;
  }
  const match = parseNodeMatch(doc.match, `${where} match`, problems);
  const name =
    typeof doc.name === 'string' && doc.name !== '' ? doc.name : match ? undefined : DEFAULT_SET;
  if (name === undefined) {
    problems.push({ path: `${where} name`, message: 'a set with a match needs a name' });
    return;
  }
  const existing = sets.get(name);
  if (existing && JSON.stringify(existing.match) !== JSON.stringify(match)) {
    problems.push({
      path: `${where} name`,
      message: `set "${name}" is defined twice with different matches`,
    });
    return;
  }
  addTo(sets, name, match, doc.resources, (i) => `${where} resources[${i}]`);
  if (doc.versions !== undefined) {
    const set = sets.get(name) as LoadedSet;
    // Not an object: kept as it is, for validation to report (validated-set.ts).
    set.versions = isObject(doc.versions)
      ? { ...set.versions, ...(doc.versions as Record<string, string>) }
      : (doc.versions as Record<string, string>);
  }
  if (doc.resourceVersions !== undefined) {
    const set = sets.get(name) as LoadedSet;
    const pins = doc.resourceVersions as LoadedSet['resourceVersions'];
    // Per type, the documents of one set add up; anything else is for validation to report.
    set.resourceVersions =
      isObject(pins) && isObject(set.resourceVersions)
        ? mergePins(set.resourceVersions, pins)
        : pins;
  }
}

function mergePins(
  a: NonNullable<LoadedSet['resourceVersions']>,
  b: NonNullable<LoadedSet['resourceVersions']>,
): NonNullable<LoadedSet['resourceVersions']> {
  const merged: Record<string, Readonly<Record<string, string>>> = { ...a };
  for (const [type, byName] of Object.entries(b)) {
    const before = merged[type];
    merged[type] = isObject(before) && isObject(byName) ? { ...before, ...byName } : byName;
  }
  return merged;
}
