/**
 * Turning user input (Envoy resources in canonical proto3 JSON, each with an `@type`) into
 * packed resources grouped by type, with every problem reported by its path.
 */
import { createHash } from 'node:crypto';
import { packAnyJson } from '../xds/json.js';
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

export function packResourceSet(inputs: readonly unknown[]): Result<PackedSet> {
  const problems: Problem[] = [];
  const set: PackedSet = new Map();
  inputs.forEach((input, index) => {
    const path = `resources[${index}]`;
    const packed = packAnyJson(input);
    if (!packed.ok) {
      for (const p of packed.problems) {
        problems.push({ path: p.path ? `${path}.${p.path}` : path, message: p.message });
      }
      return;
    }
    const { typeUrl, bytes } = packed.value;
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
    byName.set(name, { name, typeUrl, value: bytes, version: contentVersion(bytes) });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: set };
}

/** True when both maps hold the same names with byte-identical encodings. */
export function sameResources(
  a: ReadonlyMap<string, NamedResource> | undefined,
  b: ReadonlyMap<string, NamedResource> | undefined,
): boolean {
  const left = a ?? new Map<string, NamedResource>();
  const right = b ?? new Map<string, NamedResource>();
  if (left.size !== right.size) return false;
  for (const [name, resource] of left) {
    const other = right.get(name);
    if (!other || !Buffer.from(other.value).equals(resource.value)) return false;
  }
  return true;
}
