/**
 * Where the served resources come from: resource files (`resourcesPath`), or the `resources`
 * option at start and then the control API and the library. Each source goes through the
 * same validation (snapshot/validated-set.ts), once, and the store installs what it packed.
 *
 * Resources given to the API or the library are validated where they are served, unless they
 * are large (more than `INLINE_VALUES_MAX` JSON values): those are validated on the loading
 * thread (resources/file-thread.ts), as reloads of the files are, so that a 1 MiB body does
 * not hold every stream for a quarter of a second. Either way changes install in the order
 * they were asked.
 *
 * Files refuse a set whose references Envoy would reject. The option, the API and the
 * library accept it — pushing a configuration Envoy NACKs is how a test or a class shows
 * one — and report it instead: as warnings in the result, in the log, and in `status()`.
 */
import type { Logger } from 'pino';
import { MockIstiodError } from '../util/errors.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { SnapshotChange } from '../core/snapshot.js';
import type { ResourceStatus } from '../resources/status.js';
import { createSnapshotStore, type SetPins, type SnapshotStore } from '../snapshot/store.js';
import {
  DEFAULT_SET,
  referenceWarnings,
  validateSets,
  type ValidatedSet,
} from '../snapshot/validated-set.js';
import { LoadingThread } from '../resources/file-thread.js';
import type { Problem, Result, ResultWithWarnings } from '../util/problems.js';
import type { ResolvedOptions } from './options.js';
import { loadInitialSets, logResourceWarnings, ResourceFiles } from './resource-files.js';

type From = { files: ResourceFiles } | { startup: readonly ValidatedSet[] };

/**
 * Resources with more JSON values than this are validated on the loading thread. Below it
 * validation takes a few milliseconds, less than handing them over; above, time grows with
 * them (150-270 ms for a 1 MiB body of 3,500 clusters, about 40 values each).
 */
export const INLINE_VALUES_MAX = 5_000;

/** Whether `value` holds more than `max` JSON values (counting stops there). */
export function holdsMore(value: unknown, max: number): boolean {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (++count > max) return true;
    if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const key in next) stack.push((next as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** How the last change through the option, the API or the library went. */
function apiStatus(warnings: Problem[]): ResourceStatus {
  return { source: 'api', loadedAt: new Date().toISOString(), warnings, lastError: undefined };
}

/** The store, and what fills it: the files, or the start-up sets and then the API. */
export class ResourceSources {
  private apiStatus = apiStatus([]);
  /** The last change asked for: the next waits for it, so that they install in order. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    readonly store: SnapshotStore,
    private readonly from: From,
    private readonly log: Logger,
    private readonly loader: LoadingThread,
  ) {
    if ('startup' in from) this.accept(referenceWarnings(from.startup));
  }

  private get files(): ResourceFiles | undefined {
    return 'files' in this.from ? this.from.files : undefined;
  }

  setResources(
    resources: readonly unknown[],
    pins?: SetPins,
  ): Promise<ResultWithWarnings<SnapshotChange>> {
    if (!holdsMore([resources, pins], INLINE_VALUES_MAX)) {
      return this.inOrder(() => this.store.set(resources, pins));
    }
    const validated = this.loader.validateSet({ name: DEFAULT_SET, resources, ...pins });
    return this.inOrder(async () => {
      const result = await validated;
      return result.ok ? this.store.setValidated(result.value) : result;
    });
  }

  setResourceSets(sets: readonly unknown[]): Promise<ResultWithWarnings<SnapshotChange[]>> {
    if (!holdsMore(sets, INLINE_VALUES_MAX)) {
      return this.inOrder(() => this.store.setSets(sets));
    }
    const validated = this.loader.validateSets(sets);
    return this.inOrder(async () => {
      const result = await validated;
      return result.ok ? this.store.setSetsValidated(result.value) : result;
    });
  }

  /** Runs `change` once every change asked for before it is done, and reports it. */
  private inOrder<T>(
    change: () => ResultWithWarnings<T> | Promise<ResultWithWarnings<T>>,
  ): Promise<ResultWithWarnings<T>> {
    const done = this.last.then(change).then((result) => this.report(result));
    this.last = done.catch(() => undefined);
    return done;
  }

  async reload(): Promise<Result<SnapshotChange[]>> {
    if (this.files) return this.files.reload();
    const message = 'this server does not serve resources from files';
    return { ok: false, problems: [{ path: 'resourcesPath', message }] };
  }

  status(): ResourceStatus {
    return this.files?.status ?? this.apiStatus;
  }

  /** Serves the start-up resources again: the files as they are now, or the start-up sets. */
  async restore(): Promise<void> {
    // A change still being validated installs first, not over the start-up resources.
    await this.last;
    if ('files' in this.from) {
      await this.from.files.reload();
      return;
    }
    this.store.install(this.from.startup);
    // Their warnings were logged at start; the status shows them again.
    this.apiStatus = apiStatus(referenceWarnings(this.from.startup));
  }

  watch(quietMs?: number): void {
    this.files?.watch(quietMs);
  }

  close(): void {
    this.files?.close();
    this.loader.close();
  }

  private report<T>(result: ResultWithWarnings<T>): ResultWithWarnings<T> {
    if (result.ok) this.accept(result.warnings);
    return result;
  }

  private accept(warnings: Problem[]): void {
    logResourceWarnings(this.log, warnings);
    this.apiStatus = apiStatus(warnings);
  }
}

/** Validates the start-up resources (problems throw `INVALID_RESOURCES`) and fills a store. */
export function createResourceSources(
  options: ResolvedOptions,
  events: ServerEventEmitter,
): ResourceSources {
  const storeOptions = {
    clock: options.clock,
    controlPlaneId: options.controlPlaneId,
    versioning: options.versioning,
  };
  const { resourcesPath: path, logger: log } = options;
  const loader = new LoadingThread();
  if (path) {
    const loaded = loadInitialSets(path);
    const store = createSnapshotStore(loaded.sets, storeOptions);
    const files = new ResourceFiles(path, loaded, store, events, log, loader);
    return new ResourceSources(store, { files }, log, loader);
  }
  const startup = validateSets(options.resourceSets);
  if (!startup.ok) {
    throw MockIstiodError.fromProblems('INVALID_RESOURCES', 'invalid resources', startup.problems);
  }
  const store = createSnapshotStore(startup.value, storeOptions);
  return new ResourceSources(store, { startup: startup.value }, log, loader);
}
