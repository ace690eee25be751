/**
 * Immutable, versioned snapshots of the resource set, with the encode-once cache.
 *
 * Each type has its own version, bumped only when that type's resources change. The
 * response body for a type (everything but the nonce) is encoded once per version and shared
 * by every stream; a subset of names (non-wildcard subscriptions) is cached the same way.
 */
import { encodeResponseBody, type PackedResource } from '../xds/wire.js';
import { packAnyJson } from '../xds/json.js';
import { emptyResourceOf, fillsMissingNames } from './types/registry.js';

export interface NamedResource extends PackedResource {
  name: string;
  /** Per-resource version for delta xDS: a hash of the encoded resource, so that the same
   * content has the same version across pushes and across restarts of the mock (a proxy
   * reconnecting with `initial_resource_versions` is not sent what it already has). */
  version: string;
}

/** Packed resources by type URL, then by name. */
export type PackedSet = Map<string, Map<string, NamedResource>>;

const MAX_CACHED_SUBSETS = 64;

export class TypeSnapshot {
  private wholeBody: Buffer | undefined;
  private readonly subsetBodies = new Map<string, Buffer>();

  constructor(
    readonly typeUrl: string,
    readonly version: string,
    readonly resources: ReadonlyMap<string, NamedResource>,
    private readonly controlPlaneId: string,
  ) {}

  /**
   * The encoded response body: all resources when `names` is undefined (wildcard), else
   * those of the named resources that exist, in the order asked. With `fillMissing`, a name
   * without a resource gets the type's empty resource of that name instead, as istiod sends
   * (conformance: "SotW: names that do not exist").
   */
  body(names?: readonly string[], fillMissing = false): Buffer {
    if (!names) {
      this.wholeBody ??= this.encode([...this.resources.values()]);
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

/** The type's empty resource of `name`, packed; undefined for a type without one. */
function emptyResource(typeUrl: string, name: string): PackedResource | undefined {
  const json = emptyResourceOf(typeUrl, name);
  if (!json) return undefined;
  const packed = packAnyJson(json);
  // The JSON is the type descriptor's own: failing to pack it is a bug here, not bad input.
  if (!packed.ok) throw new Error(`cannot pack the empty ${typeUrl} "${name}"`);
  return { typeUrl: packed.value.typeUrl, value: packed.value.bytes };
}

export class Snapshot {
  constructor(
    /** The version of the latest push (the newest of the type versions). */
    readonly version: string,
    /** The version of the very first snapshot: types never seen answer with it. */
    readonly baseVersion: string,
    private readonly types: ReadonlyMap<string, TypeSnapshot>,
    private readonly controlPlaneId: string,
  ) {}

  /** The snapshot of one type; an empty one (at the base version) for types never set. */
  get(typeUrl: string): TypeSnapshot {
    return (
      this.types.get(typeUrl) ??
      new TypeSnapshot(typeUrl, this.baseVersion, new Map(), this.controlPlaneId)
    );
  }

  has(typeUrl: string): boolean {
    return this.types.has(typeUrl);
  }

  typeUrls(): string[] {
    return [...this.types.keys()];
  }

  /** Builds the next snapshot: types whose resources changed get `version`, others keep theirs. */
  static next(
    previous: Snapshot | undefined,
    set: PackedSet,
    version: string,
    controlPlaneId: string,
    same: (a: ReadonlyMap<string, NamedResource>, b: ReadonlyMap<string, NamedResource>) => boolean,
    baseVersion?: string,
    /** Versions to give these types instead of `version` (a captured config's, kept). */
    kept?: ReadonlyMap<string, string>,
  ): { snapshot: Snapshot; changed: string[] } {
    const types = new Map<string, TypeSnapshot>();
    const changed: string[] = [];
    const typeUrls = new Set([...(previous?.typeUrls() ?? []), ...set.keys()]);
    for (const typeUrl of typeUrls) {
      const resources = set.get(typeUrl) ?? new Map<string, NamedResource>();
      const before = previous?.types.get(typeUrl);
      if (before && same(before.resources, resources)) {
        types.set(typeUrl, before);
      } else {
        const typeVersion = kept?.get(typeUrl) ?? version;
        types.set(typeUrl, new TypeSnapshot(typeUrl, typeVersion, resources, controlPlaneId));
        changed.push(typeUrl);
      }
    }
    const pushVersion = changed.length > 0 || !previous ? version : previous.version;
    const base = previous?.baseVersion ?? baseVersion ?? version;
    return { snapshot: new Snapshot(pushVersion, base, types, controlPlaneId), changed };
  }
}

export interface SnapshotChange {
  /** The name of the set that changed. */
  set: string;
  snapshot: Snapshot;
  /** Type URLs whose resources changed (and so got a new version). */
  changed: string[];
}
