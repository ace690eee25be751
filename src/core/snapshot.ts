/**
 * Immutable, versioned snapshots of the resource set, with the encode-once cache.
 *
 * As istiod versions them (`versioning: 'push'`), every type of a snapshot carries the
 * version of its push; with `per-type`, each type keeps its version until its own resources
 * change (snapshot/version.ts). The response body for a type (everything but the nonce) is
 * encoded once per version and shared by every stream; a subset of names (non-wildcard
 * subscriptions) is cached the same way.
 */
import { encodeResponseBody, type PackedResource } from '../xds/wire.js';
import { fillsMissingNames } from './types/registry.js';
import { emptyResource } from './empty-resource.js';

// Re-exported: callers find the empty resource with the snapshot that answers with it.
export { EMPTY_RESOURCE_VERSION, emptyResource } from './empty-resource.js';

/** How a snapshot's types are versioned: see snapshot/version.ts, which makes the versions. */
export type Versioning = 'push' | 'per-type';

export const VERSIONINGS: readonly Versioning[] = ['push', 'per-type'];

export interface NamedResource extends PackedResource {
  name: string;
  /** A hash of the encoded resource: the same content has the same version across pushes
   * and across restarts of the mock. Delta sessions compare it to send a push only what
   * changed; it is on the wire only with `deltaResourceVersions` (istiod sends resources
   * unversioned), and then a proxy reconnecting with `initial_resource_versions` is not
   * sent what it already has. */
  version: string;
  /**
   * The version the set pins for this resource (`resourceVersions`): written on the wire in
   * delta xDS whatever the options, instead of none (istiod's) or the content hash.
   */
  wireVersion?: string;
}

/** What a delta stream's books compare: the content, and a pinned version with it. */
export function bookVersion(resource: NamedResource): string {
  return resource.wireVersion === undefined
    ? resource.version
    : `${resource.wireVersion}\0${resource.version}`;
}

/** Packed resources by type URL, then by name. */
export type PackedSet = Map<string, Map<string, NamedResource>>;

const MAX_CACHED_SUBSETS = 64;

export class TypeSnapshot {
  private wholeBody: Buffer | undefined;
  private list: readonly NamedResource[] | undefined;
  private readonly subsetBodies = new Map<string, Buffer>();

  constructor(
    readonly typeUrl: string,
    readonly version: string,
    readonly resources: ReadonlyMap<string, NamedResource>,
    private readonly controlPlaneId: string,
    /** The scheme it was versioned by: what a delta stream owed it is sent (delta-session.ts). */
    readonly versioning: Versioning = 'push',
    /**
     * Its version was named by the set (`versions`), not given by the push: a later push keeps
     * it, and streams compare the resources too, since the same version may come back with
     * other content (docs/resources.md, "Pinned versions").
     */
    readonly pinned = false,
  ) {}

  /** Every resource, in the set's order: one list, made when first asked for. */
  get all(): readonly NamedResource[] {
    this.list ??= [...this.resources.values()];
    return this.list;
  }

  /** Whether a stream that was sent `sent` (at this version) is owed this snapshot again. */
  differsFrom(sent: { version: string; content?: unknown }): boolean {
    return sent.version !== this.version || (this.pinned && sent.content !== this.resources);
  }

  /**
   * The encoded response body: all resources when `names` is undefined (wildcard), else
   * those of the named resources that exist, in the order asked. With `fillMissing`, a name
   * without a resource gets the type's empty resource of that name instead, as istiod sends
   * (conformance: "SotW: names that do not exist").
   */
  body(names?: readonly string[], fillMissing = false): Buffer {
    if (!names) {
      this.wholeBody ??= this.encode(this.all);
      return this.wholeBody;
    }
    const key = `${fillMissing ? '+' : '-'}${names.join('\0')}`;
    let body = this.subsetBodies.get(key);
    if (!body) {
      const chosen = names.flatMap((n) => this.resourceOrEmpty(n, fillMissing) ?? []);
      body = this.encode(chosen);
      if (this.subsetBodies.size >= MAX_CACHED_SUBSETS) this.subsetBodies.clear();
      this.subsetBodies.set(key, body);
    }
    return body;
  }

  /** How many resources a response for `names` carries (see `body`). */
  count(names?: readonly string[], fillMissing = false): number {
    if (!names) return this.resources.size;
    if (fillMissing && fillsMissingNames(this.typeUrl)) return names.length;
    return names.filter((n) => this.resources.has(n)).length;
  }

  private resourceOrEmpty(name: string, fillMissing: boolean): PackedResource | undefined {
    const resource = this.resources.get(name);
    if (resource || !fillMissing) return resource;
    return emptyResource(this.typeUrl, name);
  }

  private encode(resources: readonly PackedResource[]): Buffer {
    return encodeResponseBody(this.version, this.typeUrl, resources, this.controlPlaneId);
  }
}

/** How many types' empty snapshots one snapshot keeps (see `Snapshot.empty`). */
const MAX_KEPT_EMPTIES = 32;

export class Snapshot {
  /** The empty snapshots of types the set does not hold, made when first asked for. */
  private empties: Map<string, TypeSnapshot> | undefined;

  constructor(
    /** The version of the latest push (the newest of the type versions). */
    readonly version: string,
    /** The version of the very first snapshot: types never seen answer with it. */
    readonly baseVersion: string,
    private readonly types: ReadonlyMap<string, TypeSnapshot>,
    private readonly controlPlaneId: string,
    readonly versioning: Versioning = 'push',
  ) {}

  /**
   * The snapshot of one type; an empty one for types never set: at the push's version (as
   * istiod answers every type), or with `per-type` at the base version.
   */
  get(typeUrl: string): TypeSnapshot {
    return this.types.get(typeUrl) ?? this.empty(typeUrl);
  }

  /**
   * The empty snapshot of a type the set does not hold, kept so that its response body is
   * encoded once, not again for every stream that asks (a sidecar asks for RDS and EDS names
   * a set may not serve). A client names the types it asks for: past {@link MAX_KEPT_EMPTIES}
   * types, the others are made afresh each time.
   */
  private empty(typeUrl: string): TypeSnapshot {
    const kept = this.empties?.get(typeUrl);
    if (kept) return kept;
    const version = this.versioning === 'push' ? this.version : this.baseVersion;
    const made = new TypeSnapshot(
      typeUrl,
      version,
      new Map(),
      this.controlPlaneId,
      this.versioning,
    );
    this.empties ??= new Map();
    if (this.empties.size < MAX_KEPT_EMPTIES) this.empties.set(typeUrl, made);
    return made;
  }

  has(typeUrl: string): boolean {
    return this.types.has(typeUrl);
  }

  typeUrls(): string[] {
    return [...this.types.keys()];
  }

  /**
   * The same resources at a new push version: a push that changed nothing of this set. Types
   * whose version the set pins keep it.
   */
  restamped(version: string): Snapshot {
    const types = new Map<string, TypeSnapshot>();
    for (const [typeUrl, type] of this.types) {
      types.set(
        typeUrl,
        type.pinned
          ? type
          : new TypeSnapshot(
              typeUrl,
              version,
              type.resources,
              this.controlPlaneId,
              this.versioning,
            ),
      );
    }
    return new Snapshot(version, this.baseVersion, types, this.controlPlaneId, this.versioning);
  }

  /**
   * The types whose resources differ between `previous` and `set` (all of them without one),
   * or whose version the pins change (`pins`): a type pinned to a version it is not served
   * at; with `push` versioning, a type no longer pinned too (it gets the push's version). With
   * `per-type`, a type no longer pinned keeps its version until its resources change.
   */
  static changes(
    previous: Snapshot | undefined,
    set: PackedSet,
    same: SameResources,
    pins?: ReadonlyMap<string, string>,
  ): string[] {
    const typeUrls = new Set([
      ...(previous?.typeUrls() ?? []),
      ...set.keys(),
      ...(pins?.keys() ?? []),
    ]);
    return [...typeUrls].filter((typeUrl) => {
      const before = previous?.types.get(typeUrl);
      if (!before) return true;
      const pin = pins?.get(typeUrl);
      if (pin !== undefined && !(before.pinned && before.version === pin)) return true;
      if (pin === undefined && before.pinned && before.versioning === 'push') return true;
      return !same(before.resources, set.get(typeUrl) ?? new Map());
    });
  }

  /**
   * Builds the next snapshot at `version`. With `push` every type carries it, changed or
   * not (a push re-sends them all, as istiod's does); with `per-type` only types whose
   * resources changed get it and the others keep theirs. `changed` names the types whose
   * resources changed, whatever the scheme. A type the set pins (`options.pins`) carries its
   * pinned version instead; `repeated` lists the pinned versions that come back with other
   * content than they had (types, and delta resources by name).
   */
  static next(
    previous: Snapshot | undefined,
    set: PackedSet,
    version: string,
    controlPlaneId: string,
    same: SameResources,
    options: NextOptions = {},
  ): { snapshot: Snapshot; changed: string[]; repeated: PinRepeat[] } {
    const versioning = options.versioning ?? 'push';
    const types = new Map<string, TypeSnapshot>();
    const pins = options.pins;
    const changed = options.changed
      ? [...options.changed]
      : Snapshot.changes(previous, set, same, pins);
    const repeated: PinRepeat[] = [];
    const typeUrls = new Set([
      ...(previous?.typeUrls() ?? []),
      ...set.keys(),
      ...(pins?.keys() ?? []),
    ]);
    for (const typeUrl of typeUrls) {
      const resources = set.get(typeUrl) ?? new Map<string, NamedResource>();
      const before = previous?.types.get(typeUrl);
      const unchanged = before !== undefined && !changed.includes(typeUrl);
      const pin = pins?.get(typeUrl);
      // Unchanged: the same resources, and no pin that changes the version (`changes`).
      if (unchanged && (versioning === 'per-type' || before.pinned)) {
        types.set(typeUrl, before);
        continue;
      }
      if (!unchanged && before && !same(before.resources, resources)) {
        if (pin !== undefined && pin === before.version) repeated.push({ typeUrl, version: pin });
        repeated.push(...resourceRepeats(typeUrl, before.resources, resources));
      }
      // Unchanged resources stay the very objects they were, so their encodings are reused.
      const served = unchanged ? before.resources : resources;
      types.set(
        typeUrl,
        new TypeSnapshot(
          typeUrl,
          pin ?? version,
          served,
          controlPlaneId,
          versioning,
          pin !== undefined,
        ),
      );
    }
    const pushVersion =
      changed.length > 0 || !previous || versioning === 'push' ? version : previous.version;
    const base = previous?.baseVersion ?? options.baseVersion ?? version;
    const snapshot = new Snapshot(pushVersion, base, types, controlPlaneId, versioning);
    return { snapshot, changed, repeated };
  }
}

/** A pinned version sent again with other content: a type's, or (with `name`) a resource's. */
export interface PinRepeat {
  typeUrl: string;
  version: string;
  name?: string;
}

/** The resources whose pinned version stays while their content changes. */
function resourceRepeats(
  typeUrl: string,
  before: ReadonlyMap<string, NamedResource>,
  after: ReadonlyMap<string, NamedResource>,
): PinRepeat[] {
  const repeats: PinRepeat[] = [];
  for (const [name, resource] of after) {
    const old = before.get(name);
    const version = resource.wireVersion;
    if (version === undefined || old?.wireVersion !== version) continue;
    if (Buffer.compare(old.value, resource.value) !== 0) repeats.push({ typeUrl, name, version });
  }
  return repeats;
}

export type SameResources = (
  a: ReadonlyMap<string, NamedResource>,
  b: ReadonlyMap<string, NamedResource>,
) => boolean;

export interface NextOptions {
  versioning?: Versioning;
  /** The version of the store's first snapshot (`per-type`: types never seen answer with it). */
  baseVersion?: string;
  /** Versions the set pins for these types, given instead of `version` (`versions`). */
  pins?: ReadonlyMap<string, string>;
  /** `Snapshot.changes(previous, set, same)`, when the caller has already worked it out. */
  changed?: readonly string[];
}

export interface SnapshotChange {
  /** The name of the set that changed. */
  set: string;
  snapshot: Snapshot;
  /** Type URLs whose resources changed (and so got a new version). */
  changed: string[];
  /** Pinned versions that came back with other content (see `Snapshot.next`). */
  repeated?: PinRepeat[];
}
