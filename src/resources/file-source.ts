/**
 * Resource files as a live source: load and validate them (proto check, then the
 * cross-references Envoy will trip on), and watch them for changes, debounced. A failed
 * reload reports every problem and changes nothing: the last good sets keep serving.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { checkReferences } from '../snapshot/references.js';
import { packResourceSet, resourceName } from '../snapshot/resource-set.js';
import type { ResourceSetSpec } from '../snapshot/store.js';
import type { Problem, Result } from '../util/problems.js';
import { loadResourceFiles, type LoadedSet } from './files.js';

export interface ValidatedSets {
  /** Sets with a selector first (file order), the default set last. */
  sets: ResourceSetSpec[];
  /** Accepted, but Envoy would wait for ever on these (warming). */
  warnings: Problem[];
  files: string[];
}

/** `resources[3].connect_timeout` → `<file>: [3].connect_timeout` using the set's origins. */
function locate(set: LoadedSet, problem: Problem): Problem {
  const m = /^resources\[(\d+)\](.*)$/.exec(problem.path);
  const origin = m ? set.origins[Number(m[1])] : undefined;
  if (!m || origin === undefined)
    return { path: `set "${set.name}": ${problem.path}`, message: problem.message };
  // A whole-document resource's origin ends with ':'; the field path then follows a space.
  const rest = m[2] ?? '';
  const path = origin.endsWith(':') ? `${origin} ${rest.replace(/^\./, '')}` : `${origin}${rest}`;
  return { path: path.trim(), message: problem.message };
}

function validateSet(set: LoadedSet, errors: Problem[], warnings: Problem[]): void {
  const packed = packResourceSet(set.resources);
  if (!packed.ok) {
    errors.push(...packed.problems.map((p) => locate(set, p)));
    return;
  }
  const index = new Map<string, number>();
  set.resources.forEach((r, i) => {
    const typeUrl = String((r as Record<string, unknown>)['@type']);
    index.set(`${typeUrl}\0${String(resourceName(typeUrl, r as Record<string, unknown>))}`, i);
  });
  const where = (typeUrl: string, name: string) => {
    const i = index.get(`${typeUrl}\0${name}`);
    return i === undefined ? `set "${set.name}"` : (set.origins[i] ?? '');
  };
  const report = checkReferences(packed.value, where);
  errors.push(...report.errors);
  warnings.push(...report.warnings);
}

export function loadAndValidate(path: string): Result<ValidatedSets> {
  const loaded = loadResourceFiles(path);
  if (!loaded.ok) return loaded;
  const errors: Problem[] = [...loaded.value.problems];
  const warnings: Problem[] = [];
  for (const set of loaded.value.sets) validateSet(set, errors, warnings);
  if (errors.length > 0) return { ok: false, problems: errors };
  const specs = loaded.value.sets.map(({ name, match, resources }) => ({ name, match, resources }));
  const sets = [...specs.filter((s) => s.match), ...specs.filter((s) => !s.match)];
  return { ok: true, value: { sets, warnings, files: loaded.value.files } };
}

export interface WatchOptions {
  debounceMs?: number;
  onChange(): void;
}

/**
 * Calls `onChange` (debounced) when the file, or any file of the directory, changes. A
 * file is watched through its directory, so editors that save by renaming are seen too.
 */
export function watchResources(path: string, options: WatchOptions): () => void {
  const absolute = resolve(path);
  const isDir = statSync(absolute, { throwIfNoEntry: false })?.isDirectory() === true;
  const dir = isDir ? absolute : dirname(absolute);
  const only = isDir ? undefined : basename(absolute);
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(dir, (_event, name) => {
    if (only && name !== only) return;
    clearTimeout(timer);
    timer = setTimeout(() => options.onChange(), options.debounceMs ?? 200);
  });
  watcher.on('error', () => undefined);
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
