/**
 * Where the served resources come from: resource files (`resourcesPath`), or the `resources`
 * option at start and then the control API and the library. Each source goes through the
 * same validation (snapshot/validated-set.ts), once, and the store installs what it packed.
 */
import { MockIstiodError } from '../core/errors.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { SnapshotChange } from '../core/snapshot.js';
import type { ResourceStatus } from '../resources/status.js';
import { createSnapshotStore, type SnapshotStore } from '../snapshot/store.js';
import { validateSets, type ValidatedSet } from '../snapshot/validated-set.js';
import type { Result } from '../util/problems.js';
import type { ResolvedOptions } from './options.js';
import { loadInitialSets, ResourceFiles } from './resource-files.js';

/** The store, and what fills it: the files, or the start-up sets and then the API. */
export class ResourceSources {
  private apiStatus: ResourceStatus = {
    source: 'api',
    loadedAt: new Date().toISOString(),
    warnings: [],
    lastError: undefined,
  };

  constructor(
    readonly store: SnapshotStore,
    private readonly from: { files: ResourceFiles } | { startup: readonly ValidatedSet[] },
  ) {}

  private get files(): ResourceFiles | undefined {
    return 'files' in this.from ? this.from.files : undefined;
  }

  setResources(resources: readonly unknown[]): Result<SnapshotChange> {
    return this.store.set(resources);
  }

  setResourceSets(sets: readonly unknown[]): Result<SnapshotChange[]> {
    return this.store.setSets(sets);
  }

  reload(): Result<SnapshotChange[]> {
    if (this.files) return this.files.reload();
    const message = 'this server does not serve resources from files';
    return { ok: false, problems: [{ path: 'resourcesPath', message }] };
  }

  status(): ResourceStatus {
    return this.files?.status ?? this.apiStatus;
  }

  /** Serves the start-up resources again: the files as they are now, or the start-up sets. */
  restore(): void {
    if ('files' in this.from) this.from.files.reload();
    else this.store.install(this.from.startup);
  }

  watch(): void {
    this.files?.watch();
  }

  close(): void {
    this.files?.close();
  }
}

/** Validates the start-up resources (problems throw `INVALID_RESOURCES`) and fills a store. */
export function createResourceSources(
  options: ResolvedOptions,
  events: ServerEventEmitter,
): ResourceSources {
  const storeOptions = { clock: options.clock, controlPlaneId: options.controlPlaneId };
  const path = options.resourcesPath;
  if (path) {
    const loaded = loadInitialSets(path);
    const store = createSnapshotStore(loaded.sets, storeOptions);
    const files = new ResourceFiles(path, loaded, store, events, options.logger);
    return new ResourceSources(store, { files });
  }
  const startup = validateSets(options.resourceSets);
  if (!startup.ok) {
    throw MockIstiodError.fromProblems('INVALID_RESOURCES', 'invalid resources', startup.problems);
  }
  return new ResourceSources(createSnapshotStore(startup.value, storeOptions), {
    startup: startup.value,
  });
}
