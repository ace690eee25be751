/**
 * Turning user input (Envoy resources in canonical proto3 JSON, each with an `@type`) into
 * packed resources grouped by type, with every problem reported by its path.
 */
import { createHash } from 'node:crypto';
import { packAnyJson } from '../xds/json.js';
import { cachedPack, packKey, rememberPack, type CachedPack } from './pack-cache.js';
import type { Problem, Result } from '../util/problems.js';
import { resourceType } from '../core/types/registry.js';
import type { NamedResource, PackedSet } from '../core/snapshot.js';

export function contentVersion(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 16);
}

/** The field that names a resource of this type (`name`; `cluster_name` for endpoints). */
export function nameFieldOf(typeUrl: string): string {
  return resourceType(typeUrl)?.nameField ?? 'name';
}

/** A resource's name as the user wrote it: the .proto field name, or its lowerCamelCase JSON name. */
export function resourceName(typeUrl: string, value: Record<string, unknown>): unknown {
  const field = nameFieldOf(typeUrl);
  return value[field] ?? value[field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())];
}

/** Packed resources, and where in the input each came from (for problem paths). */
export interface PackedResources {
  set: PackedSet;
  /** The input index of the resource of this type and name. */
  indexOf: (typeUrl: string, name: string) => number | undefined;
}

/**
 * The set with the resources `pins` names given their pinned version (`wireVersion`): new
 * objects for those, the others as they were. Types without pins stay the very same maps.
 */
export function pinResources(
  set: PackedSet,
  pins: ReadonlyMap<string, ReadonlyMap<string, string>>,
): PackedSet {
  if (pins.size === 0) return set;
  const pinned: PackedSet = new Map(set);
  for (const [typeUrl, byName] of pins) {
    const resources = set.get(typeUrl);
    if (!resources || byName.size === 0) continue;
    const copy = new Map(resources);
    for (const [name, wireVersion] of byName) {
      const resource = resources.get(name);
      if (resource) copy.set(name, { ...resource, wireVersion });
    }
    pinned.set(typeUrl, copy);
  }
  return pinned;
}

export function packResourceSet(inputs: readonly unknown[]): Result<PackedSet> {
  const packed = packResources(inputs);
  return packed.ok ? { ok: true, value: packed.value.set } : packed;
}

/** One input packed, with its content version; remembered by content (pack-cache.ts). */
function pack(input: unknown): Result<CachedPack> {
  const key = packKey(input);
  const cached = key === undefined ? undefined : cachedPack(key);
  if (cached) return { ok: true, value: cached };
  const packed = packAnyJson(input);
  if (!packed.ok) return packed;
  const value = { ...packed.value, version: contentVersion(packed.value.bytes) };
  if (key !== undefined) rememberPack(key, value);
  return { ok: true, value };
}

export function packResources(inputs: readonly unknown[]): Result<PackedResources> {
  const problems: Problem[] = [];
  const set: PackedSet = new Map();
  const indexes = new Map<string, number>();
  inputs.forEach((input, index) => {
    const path = `resources[${index}]`;
    const packed = pack(input);
    if (!packed.ok) {
      for (const p of packed.problems) {
        problems.push({ path: p.path ? `${path}.${p.path}` : path, message: p.message });
      }
      return;
    }
    const { typeUrl, bytes, version } = packed.value;
    const name = resourceName(typeUrl, input as Record<string, unknown>);
    if (typeof name !== 'string' || name === '') {
      problems.push({
        path: `${path}.${nameFieldOf(typeUrl)}`,
        message: 'a resource needs a non-empty name',
      });
      return;
    }
    let byName = set.get(typeUrl);
    if (!byName) set.set(typeUrl, (byName = new Map<string, NamedResource>()));
    if (byName.has(name)) {
      problems.push({ path: `${path}.name`, message: `duplicate ${typeUrl} named "${name}"` });
      return;
    }
    byName.set(name, { name, typeUrl, value: bytes, version });
    indexes.set(`${typeUrl}\0${name}`, index);
  });
  if (problems.length > 0) return { ok: false, problems };
  const indexOf = (typeUrl: string, name: string) => indexes.get(`${typeUrl}\0${name}`);
  return { ok: true, value: { set, indexOf } };
}

/** True when both maps hold the same names with byte-identical encodings (and the same pins). */
export function sameResources(
  a: ReadonlyMap<string, NamedResource> | undefined,
  b: ReadonlyMap<string, NamedResource> | undefined,
): boolean {
  const left = a ?? new Map<string, NamedResource>();
  const right = b ?? new Map<string, NamedResource>();
  if (left.size !== right.size) return false;
  for (const [name, resource] of left) {
    const other = right.get(name);
    if (!other || other.wireVersion !== resource.wireVersion) return false;
    // Packed again from the same JSON, a resource keeps its very bytes (pack-cache.ts).
    if (other.value !== resource.value && Buffer.compare(other.value, resource.value) !== 0) {
      return false;
    }
  }
  return true;
}
