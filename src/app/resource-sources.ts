/**
 * Where the served resources come from: resource files (`resourcesPath`), or the `resources`
 * option at start and then the control API and the library. Each source goes through the
 * same validation (snapshot/validated-set.ts), once, and the store installs what it packed.
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
import { referenceWarnings, validateSets, type ValidatedSet } from '../snapshot/validated-set.js';
import type { Problem, Result, ResultWithWarnings } from '../util/problems.js';
import type { ResolvedOptions } from './options.js';
import { loadInitialSets, logResourceWarnings, ResourceFiles } from './resource-files.js';

type From = { files: ResourceFiles } | { startup: readonly ValidatedSet[] };

/** How the last change through the option, the API or the library went. */
function apiStatus(warnings: Problem[]): ResourceStatus {
  return { source: 'api', loadedAt: new Date().toISOString(), warnings, lastError: undefined };
}

/** The store, and what fills it: the files, or the start-up sets and then the API. */
export class ResourceSources {
  private apiStatus = apiStatus([]);

  constructor(
    readonly store: SnapshotStore,
    private readonly from: From,
    private readonly log: Logger,
  ) {
    if ('startup' in from) this.accept(referenceWarnings(from.startup));
  }

  private get files(): ResourceFiles | undefined {
    return 'files' in this.from ? this.from.files : undefined;
  }

  setResources(resources: readonly unknown[], pins?: SetPins): ResultWithWarnings<SnapshotChange> {
    return this.report(this.store.set(resources, pins));
  }

  setResourceSets(sets: readonly unknown[]): ResultWithWarnings<SnapshotChange[]> {
    return this.report(this.store.setSets(sets));
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
  if (path) {
    const loaded = loadInitialSets(path);
    const store = createSnapshotStore(loaded.sets, storeOptions);
    const files = new ResourceFiles(path, loaded, store, events, log);
    return new ResourceSources(store, { files }, log);
  }
  const startup = validateSets(options.resourceSets);
  if (!startup.ok) {
    throw MockIstiodError.fromProblems('INVALID_RESOURCES', 'invalid resources', startup.problems);
  }
  const store = createSnapshotStore(startup.value, storeOptions);
  return new ResourceSources(store, { startup: startup.value }, log);
}
