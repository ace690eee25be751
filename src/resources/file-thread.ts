/**
 * Loading resource files on a thread of their own, for a reload while streams are served. A
 * legitimate file of a few MiB takes seconds to parse and validate; on the thread that serves
 * the streams, every stream would wait for it. A thread is started for each reload (reloads
 * are rare, and nothing stays behind), with a bound on its heap, so that files that need more
 * are refused and the server goes on with the last good sets.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../util/package-root.js';
import type { Result } from '../util/problems.js';
import type { ValidatedFiles } from './file-source.js';

/** The heap the loading thread may use (MiB): a 64 MiB file of clusters needs most of it. */
export const LOADER_HEAP_MB = 4096;

/** What a load stopped by closing (its `signal`) answers. */
export const CLOSING_MESSAGE = 'not loaded: the server is closing';

/**
 * Run from the sources (tsx, the tests), the worker loads its TypeScript through tsx's own
 * `tsImport`: tsx's hooks given to a worker as `--import` do not resolve the sources' `.js`
 * imports on Node 22.
 */
const FROM_SOURCES = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ tsImport }) => tsImport(workerData.entry, workerData.entry));
`;

/** How to start the worker: its module (or the code that loads it) and what it is given. */
function workerStart(path: string): { code: string; eval: boolean; workerData: object } {
  if (import.meta.url.endsWith('.ts')) {
    const entry = new URL('./file-worker.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    return { code: FROM_SOURCES, eval: true, workerData: { path, entry, tsx } };
  }
  // Compiled, or bundled (where this module's URL is the bundle's): the compiled worker.
  const file = join(packageRoot(), 'dist', 'src', 'resources', 'file-worker.js');
  return { code: file, eval: false, workerData: { path } };
}

/**
 * The files at `path` read, parsed and validated (file-source.ts, `loadAndValidate`) on a
 * thread of their own, with at most `heapMb` MiB of heap. Never rejects: a thread that cannot
 * start, or runs out of its heap, or is stopped by `signal`, is a problem naming `path`.
 */
export function loadOffThread(
  path: string,
  signal?: AbortSignal,
  { heapMb = LOADER_HEAP_MB }: { heapMb?: number } = {},
): Promise<Result<ValidatedFiles>> {
  const refused = (message: string): Result<ValidatedFiles> => ({
    ok: false,
    problems: [{ path, message }],
  });
  if (signal?.aborted) return Promise.resolve(refused(CLOSING_MESSAGE));
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      const start = workerStart(path);
      worker = new Worker(start.code, {
        eval: start.eval,
        workerData: start.workerData,
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: heapMb },
        // Its output, if any, is not mixed into the server's (its stdout carries the JSON log).
        stdout: true,
        stderr: true,
      });
    } catch (err) {
      resolve(refused(`cannot be loaded: no thread to load it on (${String(err)})`));
      return;
    }
    let answer: Result<ValidatedFiles> | undefined;
    let failure: string | undefined;
    const stop = () => void worker.terminate();
    signal?.addEventListener('abort', stop, { once: true });
    worker.unref();
    worker.on('message', (message: Result<ValidatedFiles>) => (answer = message));
    worker.on('error', (err: NodeJS.ErrnoException) => {
      failure =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `too large to load: it needed more than the ${heapMb} MiB of heap a load may use`
          : `cannot be loaded: ${err.message}`;
    });
    worker.on('exit', (code) => {
      signal?.removeEventListener('abort', stop);
      if (signal?.aborted) return resolve(refused(CLOSING_MESSAGE));
      resolve(
        answer ?? refused(failure ?? `cannot be loaded: the loading thread stopped (${code})`),
      );
    });
  });
}
