/**
 * Loading resource files on a thread of their own, for a reload while streams are served. A
 * legitimate file of a few MiB takes seconds to parse and validate; on the thread that serves
 * the streams, every stream would wait for it. The thread is started at the first reload and
 * kept while reloads come (starting one costs more than a small reload: its modules load
 * again); it ends once idle, so that a server left running holds no second heap. Its heap is
 * bounded: files that need more are refused, the thread is replaced at the next load, and the
 * server goes on with the last good sets.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../util/package-root.js';
import type { Result } from '../util/problems.js';
import type { ResourceSetSpec, ValidatedSet } from '../snapshot/validated-set.js';
import type { ValidatedFiles } from './file-source.js';

/** The heap the loading thread may use (MiB): a 64 MiB file of clusters needs most of it. */
export const LOADER_HEAP_MB = 4096;

/** How long the loading thread stays after its last load, for the next one (ms). */
export const LOADER_IDLE_MS = 30_000;

/**
 * How long one load may take (ms): a 64 MiB file of 190,000 clusters, the largest file read,
 * loads in 52 s on a quiet machine. A load past it (a read that never returns, on a stalled
 * network file system) is stopped with its thread, so that the reloads after it are not kept
 * waiting behind it.
 */
export const LOADER_DEADLINE_MS = 300_000;

/** What a load stopped by closing answers. */
export const CLOSING_MESSAGE = 'not loaded: the server is closing';

/**
 * What the thread is asked (file-worker.ts): the resource files at a path, or resources the
 * control API or the library were given (`validateSet`, `validateSets`).
 */
export type LoadWork =
  | { kind: 'files'; path: string }
  | { kind: 'set'; spec: ResourceSetSpec }
  | { kind: 'sets'; specs: readonly unknown[] };
export type LoadRequest = LoadWork & { id: number };

/** Where a problem of the work itself, not of what it reads, is said to be. */
export function problemPath(work: LoadWork): string {
  return work.kind === 'files' ? work.path : work.kind === 'set' ? 'resources' : 'sets';
}
/** What each kind of work answers. */
export type LoadResult<W extends LoadWork> = Result<
  W extends { kind: 'files' }
    ? ValidatedFiles
    : W extends { kind: 'set' }
      ? ValidatedSet
      : ValidatedSet[]
>;
export interface LoadAnswer {
  id: number;
  result: Result<unknown>;
}

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
function workerStart(): { code: string; eval: boolean; workerData: object } {
  if (import.meta.url.endsWith('.ts')) {
    const entry = new URL('./file-worker.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    return { code: FROM_SOURCES, eval: true, workerData: { entry, tsx } };
  }
  // Compiled, or bundled (where this module's URL is the bundle's): the compiled worker.
  const file = join(packageRoot(), 'dist', 'src', 'resources', 'file-worker.js');
  return { code: file, eval: false, workerData: {} };
}

type Resolve = (result: Result<unknown>) => void;

/** A load asked of a thread and not yet answered. */
interface Pending {
  /** Where a problem that is the thread's, not the input's, is said to be. */
  readonly path: string;
  readonly resolve: Resolve;
  readonly deadline: NodeJS.Timeout;
}

/** One started thread: its loads not yet answered, each with the path it names. */
interface Running {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Why it stopped, from its `error` event, for the loads it leaves unanswered. */
  failure?: string;
}

const refused = (path: string, message: string): Result<never> => ({
  ok: false,
  problems: [{ path, message }],
});

/**
 * The thread that reads, parses and validates resource files (file-source.ts,
 * `loadAndValidate`) for reloads, and validates large resources given to the control API or
 * the library, with at most `heapMb` MiB of heap. Work is answered in the order asked. It
 * never rejects: a thread that cannot start, runs out of its heap, runs past its deadline or
 * is stopped by `close()` answers a problem naming the path (the files', or `resources`).
 */
export class LoadingThread {
  private running: Running | undefined;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly heapMb: number;
  private readonly idleMs: number;
  private readonly deadlineMs: number;

  constructor({
    heapMb = LOADER_HEAP_MB,
    idleMs = LOADER_IDLE_MS,
    deadlineMs = LOADER_DEADLINE_MS,
  } = {}) {
    this.heapMb = heapMb;
    this.idleMs = idleMs;
    this.deadlineMs = deadlineMs;
  }

  /** The running thread's id, or undefined while none runs (before a load, or once idle). */
  get threadId(): number | undefined {
    return this.running?.worker.threadId;
  }

  /** The resource files at `path`, read, parsed and validated. */
  load(path: string): Promise<Result<ValidatedFiles>> {
    return this.run({ kind: 'files', path });
  }

  /** Resources validated as `validateSet` does (snapshot/validated-set.ts). */
  validateSet(spec: ResourceSetSpec): Promise<Result<ValidatedSet>> {
    return this.run({ kind: 'set', spec });
  }

  /** Sets validated as `validateSets` does (snapshot/validated-set.ts). */
  validateSets(specs: readonly unknown[]): Promise<Result<ValidatedSet[]>> {
    return this.run({ kind: 'sets', specs });
  }

  private run<W extends LoadWork>(work: W): Promise<LoadResult<W>> {
    const path = problemPath(work);
    if (this.closed) return Promise.resolve(refused(path, CLOSING_MESSAGE));
    clearTimeout(this.idleTimer);
    let running: Running;
    try {
      running = this.running ??= this.start();
    } catch (err) {
      return Promise.resolve(
        refused(path, `cannot be loaded: no thread to load it on (${String(err)})`),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const deadline = setTimeout(() => this.overdue(running), this.deadlineMs).unref();
      running.pending.set(id, { path, resolve: resolve as Resolve, deadline });
      try {
        running.worker.postMessage({ ...work, id } satisfies LoadRequest);
      } catch (err) {
        // Input that cannot be cloned to the thread (the library given functions, say).
        running.pending.delete(id);
        clearTimeout(deadline);
        if (running.pending.size === 0) this.idleLater();
        resolve(refused(path, `cannot be validated: ${(err as Error).message}`));
      }
    });
  }

  /** Stops the thread: a load it runs, and any asked for later, answers `CLOSING_MESSAGE`. */
  close(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    this.answerAll(running, CLOSING_MESSAGE);
    void running.worker.terminate();
  }

  private start(): Running {
    const start = workerStart();
    const worker = new Worker(start.code, {
      eval: start.eval,
      workerData: start.workerData,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
      // Its output, if any, is not mixed into the server's (its stdout carries the JSON log).
      stdout: true,
      stderr: true,
    });
    // It never keeps the process alive: a server that ends does not wait for its reloads.
    worker.unref();
    const running: Running = { worker, pending: new Map() };
    worker.on('message', ({ id, result }: LoadAnswer) => {
      const load = running.pending.get(id);
      if (!load) return;
      running.pending.delete(id);
      clearTimeout(load.deadline);
      load.resolve(result);
      if (running.pending.size === 0 && running === this.running) this.idleLater();
    });
    worker.on('error', (err: NodeJS.ErrnoException) => {
      running.failure =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `too large to load: it needed more than the ${this.heapMb} MiB of heap a load may use`
          : `cannot be loaded: ${err.message}`;
    });
    worker.on('exit', (code) => {
      if (running === this.running) this.running = undefined;
      this.answerAll(
        running,
        running.failure ?? `cannot be loaded: the loading thread stopped (${code})`,
      );
    });
    return running;
  }

  /** Ends the thread once it has had no load for `idleMs`. */
  private idleLater(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const running = this.running;
      if (!running || running.pending.size > 0) return;
      this.running = undefined;
      void running.worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** A load ran past its deadline: its thread is stopped, and every load it held answered. */
  private overdue(running: Running): void {
    if (running === this.running) this.running = undefined;
    const seconds = this.deadlineMs / 1000;
    this.answerAll(running, `not loaded: the load took longer than ${seconds} s, and was stopped`);
    void running.worker.terminate();
  }

  private answerAll(running: Running, message: string): void {
    for (const { path, resolve, deadline } of running.pending.values()) {
      clearTimeout(deadline);
      resolve(refused(path, message));
    }
    running.pending.clear();
  }
}
