/**
 * The snapshot store: the one place the current resource set lives. Replacing the set
 * validates it first; on any problem the previous snapshot keeps serving.
 */
import type { Result } from '../xds/problems.js';
import { packResourceSet, sameResources } from './resource-set.js';
import { Snapshot } from './snapshot.js';
import { createVersioner, type Clock } from './version.js';

export interface SnapshotChange {
  snapshot: Snapshot;
  /** Type URLs whose resources changed (and so got a new version). */
  changed: string[];
}

export interface SnapshotStore {
  current(): Snapshot;
  /** Validates and installs a new resource set; listeners hear of it when something changed. */
  set(inputs: readonly unknown[]): Result<SnapshotChange>;
  onChange(listener: (change: SnapshotChange) => void): () => void;
}

export interface SnapshotStoreOptions {
  clock?: Clock;
  /** Written into every response's `control_plane.identifier`. */
  controlPlaneId?: string;
}

export function createSnapshotStore(
  initial: readonly unknown[],
  options: SnapshotStoreOptions = {},
): Result<SnapshotStore> {
  const versioner = createVersioner(options.clock);
  const controlPlaneId = options.controlPlaneId ?? 'mock-istiod';
  const first = packResourceSet(initial);
  if (!first.ok) return first;
  let current = Snapshot.next(
    undefined,
    first.value,
    versioner.next(),
    controlPlaneId,
    sameResources,
  ).snapshot;
  const listeners = new Set<(change: SnapshotChange) => void>();

  const store: SnapshotStore = {
    current: () => current,
    set(inputs) {
      const packed = packResourceSet(inputs);
      if (!packed.ok) return packed;
      const change = Snapshot.next(
        current,
        packed.value,
        versioner.next(),
        controlPlaneId,
        sameResources,
      );
      if (change.changed.length > 0) {
        current = change.snapshot;
        for (const listener of listeners) listener(change);
      }
      return { ok: true, value: { snapshot: current, changed: change.changed } };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { ok: true, value: store };
}
