/**
 * Per-type lookups for the JSON converter, computed once per protobufjs `Type` and cached in
 * a WeakMap (resource sets of thousands of clusters go through the same few types).
 *
 * @internal
 */
import protobuf from 'protobufjs';

/** What a field (or a map's value) holds. */
export type ValueKind =
  | { readonly t: 'message'; readonly type: protobuf.Type }
  | { readonly t: 'enum'; readonly enum: protobuf.Enum }
  | { readonly t: 'scalar'; readonly scalar: string };

export interface FieldInfo {
  readonly field: protobuf.Field;
  /** The property name on protobufjs messages (the .proto name, since Envoy's root keeps case). */
  readonly name: string;
  /** lowerCamelCase (or the declared `json_name`), also accepted on input. */
  readonly jsonName: string;
  /** The element kind for repeated fields, the value kind for maps. */
  readonly kind: ValueKind;
  readonly repeated: boolean;
  /** Set for map fields only. */
  readonly keyType: string | undefined;
  /** The real oneof this field belongs to (not the synthetic one of a proto3 `optional`). */
  readonly oneof: string | undefined;
  /** Oneof members and proto3 `optional` fields are written even at their default value. */
  readonly explicitPresence: boolean;
}

export interface TypeInfo {
  /** protobufjs recomputes `Type#fullName` on every read; it is kept here instead. */
  readonly fullName: string;
  readonly fields: readonly FieldInfo[];
  /** Keyed by both the proto name and the JSON name. */
  readonly byName: ReadonlyMap<string, FieldInfo>;
}

const cache = new WeakMap<protobuf.Type, TypeInfo>();

export function typeInfo(type: protobuf.Type): TypeInfo {
  let info = cache.get(type);
  if (info === undefined) {
    info = buildTypeInfo(type);
    cache.set(type, info);
  }
  return info;
}

/** `type.fullName` (with the leading dot), without protobufjs's per-read string building. */
export function fullNameOf(type: protobuf.Type): string {
  return typeInfo(type).fullName;
}

/** The field info for a name known to exist (used for the well-known types' own fields). */
export function requireField(type: protobuf.Type, name: string): FieldInfo {
  const info = typeInfo(type).byName.get(name);
  if (info === undefined) throw new Error(`mock-istiod: ${type.fullName} has no field ${name}`);
  return info;
}

/** The message type of a field known to hold messages (used for the well-known types). */
export function messageTypeOf(type: protobuf.Type, fieldName: string): protobuf.Type {
  const kind = requireField(type, fieldName).kind;
  if (kind.t !== 'message') throw new Error(`mock-istiod: ${type.fullName}.${fieldName}`);
  return kind.type;
}

function buildTypeInfo(type: protobuf.Type): TypeInfo {
  const fields = type.fieldsArray.map(fieldInfo);
  const byName = new Map<string, FieldInfo>();
  for (const f of fields) {
    byName.set(f.name, f);
    if (!byName.has(f.jsonName)) byName.set(f.jsonName, f);
  }
  return { fullName: type.fullName, fields, byName };
}

function fieldInfo(field: protobuf.Field): FieldInfo {
  field.resolve();
  const declaredJsonName: unknown = field.options?.['json_name'];
  const synthetic = field.options?.['proto3_optional'] === true;
  return {
    field,
    name: field.name,
    jsonName: typeof declaredJsonName === 'string' ? declaredJsonName : toJsonName(field.name),
    kind: valueKind(field),
    repeated: field.repeated,
    keyType: field instanceof protobuf.MapField ? field.keyType : undefined,
    oneof: field.partOf !== null && !synthetic ? field.partOf.name : undefined,
    explicitPresence: field.partOf !== null,
  };
}

function valueKind(field: protobuf.Field): ValueKind {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return { t: 'message', type: resolved };
  if (resolved instanceof protobuf.Enum) return { t: 'enum', enum: resolved };
  return { t: 'scalar', scalar: field.type };
}

/** protoc's rule: drop each underscore and upper-case the letter after it. */
export function toJsonName(protoName: string): string {
  let out = '';
  let upper = false;
  for (const ch of protoName) {
    if (ch === '_') {
      upper = true;
    } else {
      out += upper ? ch.toUpperCase() : ch;
      upper = false;
    }
  }
  return out;
}

/** The known field name closest to a misspelt one, if any is close enough to suggest. */
export function suggestField(type: protobuf.Type, unknown: string): string | undefined {
  const wanted = unknown.toLowerCase().replace(/_/g, '');
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wanted.length / 3)) + 1;
  for (const f of typeInfo(type).fields) {
    const d = editDistance(wanted, f.name.toLowerCase().replace(/_/g, ''));
    if (d < bestDistance) {
      best = f.name;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance with a single rolling row. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}
