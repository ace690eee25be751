/**
 * Resource files as a live source: load and validate them (proto check, then the
 * cross-references Envoy will trip on), and watch them for changes, debounced. A failed
 * reload reports every problem and changes nothing: the last good sets keep serving.
 */
import { statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { relocate, validateSet, type ValidatedSet } from '../snapshot/validated-set.js';
import type { Problem, Result } from '../util/problems.js';
import { loadResourceFiles, type LoadedSet } from './files.js';

export interface ValidatedFiles {
  /** Sets with a selector first (file order), the default set last; packed, to install. */
  sets: ValidatedSet[];
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

/**
 * Validates one loaded set, its problems located in the files. A reference Envoy would
 * reject is an error here: a file is refused rather than served to be NACKed.
 */
function validateLoaded(
  loaded: LoadedSet,
  errors: Problem[],
  warnings: Problem[],
): ValidatedSet | undefined {
  const validated = validateSet(loaded);
  if (!validated.ok) {
    errors.push(...validated.problems.map((p) => locate(loaded, p)));
    return undefined;
  }
  const set = relocate(validated.value, (p) => locate(loaded, p));
  errors.push(...set.references.errors);
  warnings.push(...set.references.warnings);
  return set;
}

/**
 * Loads and validates the files; never throws. What the checks above did not foresee (a
 * document deep enough to exhaust the stack of validation) is one more problem, so that
 * nothing the files hold ends the process. A reload while streams are served runs this on a
 * thread of its own (file-thread.ts).
 */
export function loadAndValidate(path: string): Result<ValidatedFiles> {
  try {
    return loadAndValidateFiles(path);
  } catch (err) {
    const reason = err instanceof RangeError ? 'nested too deeply' : String(err);
    return { ok: false, problems: [{ path, message: `cannot be loaded: ${reason}` }] };
  }
}

function loadAndValidateFiles(path: string): Result<ValidatedFiles> {
  const loaded = loadResourceFiles(path);
  if (!loaded.ok) return loaded;
  const errors: Problem[] = [...loaded.value.problems];
  const warnings: Problem[] = [];
  const validated = loaded.value.sets.flatMap((set) => validateLoaded(set, errors, warnings) ?? []);
  if (loaded.value.sets.length === 0 && errors.length === 0)
    errors.push({ path, message: 'no resource set in the files' });
  if (errors.length > 0) return { ok: false, problems: errors };
  const sets = [...validated.filter((s) => s.match), ...validated.filter((s) => !s.match)];
  return { ok: true, value: { sets, warnings, files: loaded.value.files } };
}

export interface WatchOptions {
  debounceMs?: number;
  onChange(): void;
}

/** What the file `path` (followed through symlinks) is now: its inode, size and time. */
function stamp(path: string): string {
  const stat = statOrCode(path);
  if (typeof stat === 'string') return stat;
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : 'missing';
}

/** The inode of the directory `dir`, or undefined when there is none (or it cannot be read). */
function dirInode(dir: string): number | undefined {
  const stat = statOrCode(dir);
  return typeof stat === 'object' && stat.isDirectory() ? stat.ino : undefined;
}

/**
 * `statSync`, run from the watcher's callbacks and timers: a symlink loop (ELOOP) or a
 * permission taken away (EACCES) gives its code instead of throwing out of the timer.
 */
function statOrCode(path: string): Stats | undefined | string {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    return `error:${(err as NodeJS.ErrnoException).code ?? 'unknown'}`;
  }
}

/**
 * Calls `onChange` (debounced) when the file, or any file of the directory, changes. A
 * file is watched through its directory, so editors that save by renaming are seen too;
 * so is a file reached through a symlink that is swapped (a Kubernetes ConfigMap volume
 * swaps its `..data` link, and the event names that link, not the file): an event naming
 * another entry counts when the file it leads to is not the one last seen. When the
 * watched directory itself goes (deleted, or replaced by another), the watch is on nothing:
 * the directory is then looked for every quiet period, and watched again once it is back.
 */
export function watchResources(path: string, options: WatchOptions): () => void {
  const absolute = resolve(path);
  const isDir = dirInode(absolute) !== undefined;
  const dir = isDir ? absolute : dirname(absolute);
  const only = isDir ? undefined : basename(absolute);
  const quietMs = options.debounceMs ?? 200;
  let seen = only ? stamp(absolute) : '';
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let watched: number | undefined;

  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (only) seen = stamp(absolute);
      options.onChange();
    }, quietMs);
  };
  const lost = () => {
    watcher?.close();
    watcher = undefined;
    changed();
    poll ??= setInterval(() => {
      if (dirInode(dir) === undefined) return;
      clearInterval(poll);
      poll = undefined;
      attach();
      changed();
    }, quietMs);
  };
  const attach = () => {
    watched = dirInode(dir);
    try {
      watcher = watch(dir, (_event, name) => {
        if (dirInode(dir) !== watched) return lost();
        if (only && name !== only && stamp(absolute) === seen) return;
        changed();
      });
    } catch {
      return lost();
    }
    watcher.on('error', lost);
  };
  attach();
  return () => {
    clearTimeout(timer);
    clearInterval(poll);
    watcher?.close();
  };
}
