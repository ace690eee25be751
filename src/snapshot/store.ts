/**
 * The snapshot store: the one place the resource sets live. A store holds one or more named
 * sets, each with an optional node selector; a proxy is served from the first set whose
 * selector matches it (a set without one matches everybody). Replacing sets validates them
 * first; on any problem the previous snapshots keep serving.
 */
import type { ProxyIdentity } from '../core/identity.js';
import type { Problem, Result } from '../util/problems.js';
import { matchesNode, type NodeMatch } from './node-match.js';
import { packResourceSet, sameResources } from './resource-set.js';
import { Snapshot, type PackedSet, type SnapshotChange } from '../core/snapshot.js';
import { createVersioner, type Clock } from './version.js';

export const DEFAULT_SET = 'default';

export interface ResourceSetSpec {
  name: string;
  /** Which proxies get this set; undefined: every proxy. */
  match?: NodeMatch;
  resources: readonly unknown[];
}

export interface StoredSet {
  name: string;
  match: NodeMatch | undefined;
  snapshot: Snapshot;
}

export interface SnapshotStore {
  /** The default set's snapshot (the first set without a selector, else the first set). */
  current(): Snapshot;
  snapshotFor(proxy: ProxyIdentity): Snapshot;
  sets(): readonly StoredSet[];
  /** Validates and installs new resources for the default set, keeping the other sets. */
  set(inputs: readonly unknown[]): Result<SnapshotChange>;
  /** Validates and installs a whole new list of sets (all or nothing). */
  setSets(specs: readonly ResourceSetSpec[]): Result<SnapshotChange[]>;
  onChange(listener: (change: SnapshotChange) => void): () => void;
}

export interface SnapshotStoreOptions {
  clock?: Clock;
  /** Written into every response's `control_plane.identifier`. */
  controlPlaneId?: string;
}

export function createSnapshotStore(
  initial: readonly unknown[] | readonly ResourceSetSpec[],
  options: SnapshotStoreOptions = {},
): Result<SnapshotStore> {
  const store = new SetStore(options);
  const specs = isSpecList(initial) ? initial : [{ name: DEFAULT_SET, resources: initial }];
  const first = store.setSets(specs);
  return first.ok ? { ok: true, value: store } : first;
}

function isSpecList(value: readonly unknown[]): value is readonly ResourceSetSpec[] {
  return (
    value.length > 0 &&
    value.every((v) => typeof v === 'object' && v !== null && 'resources' in v && !('@type' in v))
  );
}

class SetStore implements SnapshotStore {
  private stored: StoredSet[] = [];
  private readonly versioner;
  private readonly controlPlaneId: string;
  private readonly listeners = new Set<(change: SnapshotChange) => void>();
  /** The first snapshot's version: types never seen answer with it, in every set. */
  private baseVersion: string | undefined;

  constructor(options: SnapshotStoreOptions) {
    this.versioner = createVersioner(options.clock);
    this.controlPlaneId = options.controlPlaneId ?? 'mock-istiod';
  }

  current(): Snapshot {
    const set = this.stored.find((s) => !s.match) ?? this.stored[0];
    return (set as StoredSet).snapshot;
  }

  snapshotFor(proxy: ProxyIdentity): Snapshot {
    return (this.stored.find((s) => matchesNode(s.match, proxy)) ?? this.defaultOrEmpty()).snapshot;
  }

  sets(): readonly StoredSet[] {
    return this.stored;
  }

  set(inputs: readonly unknown[]): Result<SnapshotChange> {
    const target = this.stored.find((s) => !s.match)?.name ?? DEFAULT_SET;
    const specs: ResourceSetSpec[] = this.stored.map((s) => ({
      name: s.name,
      match: s.match,
      resources: [],
    }));
    if (!specs.some((s) => s.name === target)) specs.push({ name: target, resources: [] });
    const packed = packResourceSet(inputs);
    if (!packed.ok) return packed;
    const changes = this.install(
      specs.map((s) => ({ spec: s, packed: s.name === target ? packed.value : undefined })),
    );
    const change = changes.find((c) => c.set === target) ?? {
      set: target,
      snapshot: this.current(),
      changed: [],
    };
    return { ok: true, value: change };
  }

  setSets(specs: readonly ResourceSetSpec[]): Result<SnapshotChange[]> {
    const problems: Problem[] = [];
    const names = new Set<string>();
    const packedSets = specs.map((spec, i) => {
      if (names.has(spec.name))
        problems.push({ path: `sets[${i}].name`, message: `duplicate set "${spec.name}"` });
      names.add(spec.name);
      const packed = packResourceSet(spec.resources);
      if (!packed.ok) {
        const prefix = specs.length > 1 ? `sets[${i}] (${spec.name}).` : '';
        for (const p of packed.problems)
          problems.push({ path: prefix + p.path, message: p.message });
      }
      return { spec, packed: packed.ok ? packed.value : undefined };
    });
    if (specs.length === 0)
      problems.push({ path: 'sets', message: 'expected at least one resource set' });
    if (problems.length > 0) return { ok: false, problems };
    return { ok: true, value: this.install(packedSets) };
  }

  /** Installs sets; `packed` undefined keeps that set's current resources. */
  private install(
    entries: readonly { spec: ResourceSetSpec; packed: PackedSet | undefined }[],
  ): SnapshotChange[] {
    const version = this.versioner.next();
    this.baseVersion ??= version;
    const notify = this.stored.length > 0;
    const changes: SnapshotChange[] = [];
    this.stored = entries.map(({ spec, packed }) => {
      const before = this.stored.find((s) => s.name === spec.name);
      if (!packed) return before ?? this.empty(spec, version);
      const built = Snapshot.next(
        before?.snapshot,
        packed,
        version,
        this.controlPlaneId,
        sameResources,
        this.baseVersion,
      );
      if (!before || built.changed.length > 0) changes.push({ set: spec.name, ...built });
      return { name: spec.name, match: spec.match, snapshot: built.snapshot };
    });
    if (notify)
      for (const change of changes) for (const listener of this.listeners) listener(change);
    return changes;
  }

  private empty(spec: ResourceSetSpec, version: string): StoredSet {
    const snapshot = Snapshot.next(
      undefined,
      new Map(),
      version,
      this.controlPlaneId,
      sameResources,
      this.baseVersion,
    ).snapshot;
    return { name: spec.name, match: spec.match, snapshot };
  }

  private defaultOrEmpty(): StoredSet {
    return (
      this.stored.find((s) => !s.match) ??
      this.empty({ name: '(none)', resources: [] }, this.baseVersion ?? '')
    );
  }

  onChange(listener: (change: SnapshotChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
