/**
 * The snapshot store: the one place the resource sets live. A store holds one or more named
 * sets, each with an optional node selector; a proxy is served from the first set whose
 * selector matches it (a set without one matches everybody). It installs sets validated
 * already (validated-set.ts), packed once, and never parses resources itself; `set` and
 * `setSets` are that validation followed by an install. On any problem nothing is installed
 * and the previous snapshots keep serving.
 */
import type { ProxyIdentity } from '../core/identity.js';
import type { ResultWithWarnings } from '../util/problems.js';
import { matchesNode, type NodeMatch } from './node-match.js';
import { sameResources } from './resource-set.js';
import { Snapshot, type PackedSet, type PinRepeat, type SnapshotChange } from '../core/snapshot.js';
import { createVersioner, type Clock, type Versioning } from './version.js';
import {
  DEFAULT_SET,
  referenceWarnings,
  validateSet,
  validateSets,
  type ResourceSetSpec,
  type ValidatedSet,
} from './validated-set.js';
import { pinWarnings } from './pin-warnings.js';

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
  /** Installs validated sets in place of every set. */
  install(sets: readonly ValidatedSet[]): SnapshotChange[];
  /**
   * Installs packed resources as the default set's, keeping the other sets; `versions` pins
   * the version of these types (type URL → version).
   */
  installDefault(packed: PackedSet, versions?: ReadonlyMap<string, string>): SnapshotChange;
  /**
   * Validates resources for the default set, then installs them (the other sets stay).
   * References Envoy will reject or wait on do not stop them: they come back as warnings, as
   * do pinned versions sent again with other content (`pins`: as a set's `versions` and
   * `resourceVersions`).
   */
  set(inputs: readonly unknown[], pins?: SetPins): ResultWithWarnings<SnapshotChange>;
  /** Validates a whole new list of sets, then installs them (all or nothing); warnings as `set`. */
  setSets(specs: readonly unknown[]): ResultWithWarnings<SnapshotChange[]>;
  /** `set` of resources validated elsewhere (`validateSet`, on the loading thread). */
  setValidated(validated: ValidatedSet): ResultWithWarnings<SnapshotChange>;
  /** `setSets` of sets validated elsewhere (`validateSets`, on the loading thread). */
  setSetsValidated(validated: readonly ValidatedSet[]): ResultWithWarnings<SnapshotChange[]>;
  /**
   * A push of everything at a new version, as a config change makes istiod push: every set
   * is restamped and every stream sends again what it watches. Returns the changes (one per
   * set, none changed); with `per-type` versioning there is no such push, and none.
   */
  push(): SnapshotChange[];
  onChange(listener: (change: SnapshotChange) => void): () => void;
}

export interface SnapshotStoreOptions {
  clock?: Clock;
  /** Written into every response's `control_plane.identifier`. */
  controlPlaneId?: string;
  /** One version per push (istiod's, the default) or per type (snapshot/version.ts). */
  versioning?: Versioning;
}

/** A set's pins as written (`ResourceSetSpec`): validated with the set. */
export type SetPins = Pick<ResourceSetSpec, 'versions' | 'resourceVersions'>;

/** A store serving `initial`: at least one set, validated (validated-set.ts). */
export function createSnapshotStore(
  initial: readonly ValidatedSet[],
  options: SnapshotStoreOptions = {},
): SnapshotStore {
  const store = new SetStore(options);
  store.install(initial);
  return store;
}

/** A set to install: packed resources, or undefined to keep the set's current ones. */
interface Entry {
  name: string;
  match: NodeMatch | undefined;
  packed: PackedSet | undefined;
  /** The versions the set pins, by type URL (`ResourceSetSpec.versions`). */
  versions?: ReadonlyMap<string, string>;
}

class SetStore implements SnapshotStore {
  private stored: StoredSet[] = [];
  private readonly versioner;
  private readonly controlPlaneId: string;
  private readonly versioning: Versioning;
  private readonly listeners = new Set<(change: SnapshotChange) => void>();
  /** The first snapshot's version: types never seen answer with it, in every set. */
  private baseVersion: string | undefined;

  constructor(options: SnapshotStoreOptions) {
    this.versioner = createVersioner(options.clock);
    this.controlPlaneId = options.controlPlaneId ?? '';
    this.versioning = options.versioning ?? 'push';
  }

  current(): Snapshot {
    const set = this.stored.find((s) => !s.match) ?? this.stored[0];
    return (set as StoredSet).snapshot;
  }

  snapshotFor(proxy: ProxyIdentity): Snapshot {
    // A plain loop: every stream asks on every response it sends.
    const stored = this.stored;
    for (let i = 0; i < stored.length; i++) {
      const set = stored[i] as StoredSet;
      if (matchesNode(set.match, proxy)) return set.snapshot;
    }
    return this.defaultOrEmpty().snapshot;
  }

  sets(): readonly StoredSet[] {
    return this.stored;
  }

  install(sets: readonly ValidatedSet[]): SnapshotChange[] {
    return this.replace(
      sets.map(({ name, match, packed, versions }) => ({ name, match, packed, versions })),
    );
  }

  installDefault(packed: PackedSet, versions?: ReadonlyMap<string, string>): SnapshotChange {
    const target = this.stored.find((s) => !s.match)?.name ?? DEFAULT_SET;
    const entries: Entry[] = this.stored.map(({ name, match }) =>
      name === target ? { name, match, packed, versions } : { name, match, packed: undefined },
    );
    if (!entries.some((e) => e.name === target))
      entries.push({ name: target, match: undefined, packed, versions });
    const changes = this.replace(entries);
    return (
      changes.find((c) => c.set === target) ?? {
        set: target,
        snapshot: this.current(),
        changed: [],
      }
    );
  }

  set(inputs: readonly unknown[], pins: SetPins = {}): ResultWithWarnings<SnapshotChange> {
    const validated = validateSet({ name: DEFAULT_SET, resources: inputs, ...pins });
    return validated.ok ? this.setValidated(validated.value) : validated;
  }

  setSets(specs: readonly unknown[]): ResultWithWarnings<SnapshotChange[]> {
    const validated = validateSets(specs);
    return validated.ok ? this.setSetsValidated(validated.value) : validated;
  }

  setValidated(validated: ValidatedSet): ResultWithWarnings<SnapshotChange> {
    const change = this.installDefault(validated.packed, validated.versions);
    const warnings = [...referenceWarnings([validated]), ...pinWarnings([change])];
    return { ok: true, value: change, warnings };
  }

  setSetsValidated(validated: readonly ValidatedSet[]): ResultWithWarnings<SnapshotChange[]> {
    const changes = this.install(validated);
    const warnings = [...referenceWarnings(validated), ...pinWarnings(changes)];
    return { ok: true, value: changes, warnings };
  }

  /** Puts `entries` in place of the stored sets, in their order, and reports what changed. */
  private replace(entries: readonly Entry[]): SnapshotChange[] {
    return this.versioning === 'push'
      ? this.replaceInOnePush(entries)
      : this.replacePerType(entries);
  }

  /**
   * istiod's way: any change is one push, at one new version for every type of every set,
   * and every set reports a change (its `changed` may be empty) so that every stream sends
   * again what it watches. An install that changes nothing (no resource, no set, no
   * selector) is no push: the version stays and nothing is sent.
   */
  private replaceInOnePush(entries: readonly Entry[]): SnapshotChange[] {
    const previous = this.stored;
    const plans = entries.map((entry) => {
      const before = previous.find((s) => s.name === entry.name);
      const changed = entry.packed
        ? Snapshot.changes(before?.snapshot, entry.packed, sameResources, entry.versions)
        : [];
      return { entry, before, changed };
    });
    const same =
      previous.length > 0 &&
      layoutOf(previous) === layoutOf(entries) &&
      plans.every((p) => p.changed.length === 0);
    if (same) return [];
    const version = this.nextVersion();
    const repeats: PinRepeat[][] = [];
    this.stored = plans.map(({ entry, before, changed }) => {
      const { name, match, packed, versions } = entry;
      if (!packed) {
        repeats.push([]);
        const snapshot =
          before?.snapshot.restamped(version) ?? this.empty(name, match, version).snapshot;
        return { name, match, snapshot };
      }
      const built = this.build(before?.snapshot, packed, version, { pins: versions, changed });
      repeats.push(built.repeated);
      return { name, match, snapshot: built.snapshot };
    });
    const changes = this.stored.map((s, i) => ({
      set: s.name,
      snapshot: s.snapshot,
      changed: plans[i]?.changed ?? [],
      repeated: repeats[i] ?? [],
    }));
    if (previous.length > 0) this.notify(changes);
    return changes;
  }

  push(): SnapshotChange[] {
    if (this.versioning === 'per-type') return [];
    const version = this.nextVersion();
    this.stored = this.stored.map((s) => ({ ...s, snapshot: s.snapshot.restamped(version) }));
    const changes = this.stored.map((s) => ({ set: s.name, snapshot: s.snapshot, changed: [] }));
    this.notify(changes);
    return changes;
  }

  /** The next snapshot of a set: its resources at `version`, over the one before it. */
  private build(
    before: Snapshot | undefined,
    packed: Parameters<typeof Snapshot.next>[1],
    version: string,
    options: Omit<NonNullable<Parameters<typeof Snapshot.next>[5]>, 'baseVersion'>,
  ) {
    const all = { baseVersion: this.baseVersion, ...options };
    return Snapshot.next(before, packed, version, this.controlPlaneId, sameResources, all);
  }

  private notify(changes: readonly SnapshotChange[]): void {
    for (const change of changes) for (const listener of this.listeners) listener(change);
  }

  /**
   * The former way (`per-type`): each set rebuilt here gets a version of its own, so a proxy
   * that moves to another set (one was removed, or a selector changed) never finds the same
   * version string on different content; a type keeps its version until its resources change.
   */
  private replacePerType(entries: readonly Entry[]): SnapshotChange[] {
    const notify = this.stored.length > 0;
    const previous = this.stored;
    const changes: SnapshotChange[] = [];
    this.stored = entries.map(({ name, match, packed, versions }) => {
      const before = previous.find((s) => s.name === name);
      if (!packed) return before ?? this.empty(name, match, this.nextVersion());
      const version = this.nextVersion();
      const built = this.build(before?.snapshot, packed, version, {
        versioning: 'per-type',
        pins: versions,
      });
      if (!before || built.changed.length > 0) changes.push({ set: name, ...built });
      return { name, match, snapshot: built.snapshot };
    });
    changes.push(...this.moves(previous, changes));
    if (notify) this.notify(changes);
    return changes;
  }

  /**
   * When sets were removed, reordered or given other selectors, the proxies they served may
   * now be served by another set with no content change to announce: one change per such set
   * (its types, at the snapshot its proxies now get) makes every stream look again.
   */
  private moves(
    previous: readonly StoredSet[],
    changes: readonly SnapshotChange[],
  ): SnapshotChange[] {
    const now = setKeys(this.stored);
    const moved = setKeys(previous)
      .map((key, i) => ({ key, set: previous[i] as StoredSet, at: i }))
      .filter(({ key, at }) => now[at] !== key);
    return moved
      .filter(({ set }) => !changes.some((c) => c.set === set.name))
      .map(({ set }) => ({
        set: set.name,
        snapshot: this.stored.find((s) => s.name === set.name)?.snapshot ?? this.current(),
        changed: set.snapshot.typeUrls(),
      }));
  }

  private nextVersion(): string {
    const version = this.versioner.next();
    this.baseVersion ??= version;
    return version;
  }

  private empty(name: string, match: NodeMatch | undefined, version: string): StoredSet {
    const snapshot = Snapshot.next(
      undefined,
      new Map(),
      version,
      this.controlPlaneId,
      sameResources,
      { versioning: this.versioning, baseVersion: this.baseVersion },
    ).snapshot;
    return { name, match, snapshot };
  }

  private defaultOrEmpty(): StoredSet {
    return (
      this.stored.find((s) => !s.match) ?? this.empty('(none)', undefined, this.baseVersion ?? '')
    );
  }

  onChange(listener: (change: SnapshotChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Each set's name and selector, as a key: what says which set serves which proxy. */
function setKeys(sets: readonly { name: string; match: NodeMatch | undefined }[]): string[] {
  return sets.map((s) => JSON.stringify([s.name, s.match ?? null]));
}

function layoutOf(sets: readonly { name: string; match: NodeMatch | undefined }[]): string {
  return setKeys(sets).join('\n');
}
