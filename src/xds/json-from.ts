/**
 * Canonical proto3 JSON → protobufjs messages, guided by reflection. Every problem is
 * recorded with its field path and conversion goes on, so one pass reports them all.
 * Mapping rules: https://protobuf.dev/programming-guides/json/
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import {
  ANY_TYPE,
  type FromContext,
  MAX_DEPTH,
  expected,
  fail,
  fieldPath,
  indexPath,
  isPlainObject,
  keyPath,
  setEntry,
  typeName,
} from './json-common.js';
import {
  type FieldInfo,
  type ValueKind,
  fullNameOf,
  suggestField,
  typeInfo,
} from './json-schema.js';
import { enumFromJson, mapKeyFromJson, scalarFromJson } from './json-scalars.js';
import { isDefaultEnum, isDefaultScalar } from './json-scalars-to.js';
import { VALUE_FORM_TYPES, buildMessage, wellKnownFromJson } from './json-well-known.js';
import { encodeMessage, resolveTypeUrl } from './json-registry.js';

/** A message of `type` from its JSON, or undefined (with problems recorded) when unusable. */
export function messageFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (fullNameOf(type) === ANY_TYPE) return anyFromJson(type, value, path, ctx);
  const wellKnown = wellKnownFromJson(type);
  if (wellKnown !== undefined) return wellKnown(type, value, path, ctx);
  if (!isPlainObject(value)) return expected(ctx, path, `an object (${typeName(type)})`, value);
  return objectFromJson(type, value, path, ctx);
}

function objectFromJson(
  type: protobuf.Type,
  json: Record<string, unknown>,
  path: string,
  ctx: FromContext,
  skipKey?: string,
): protobuf.Message | undefined {
  if (ctx.depth >= MAX_DEPTH) return fail(ctx, path, `nested deeper than ${MAX_DEPTH} levels`);
  ctx.depth++;
  const message = type.create() as unknown as Record<string, unknown>;
  const info = typeInfo(type);
  const oneofMembers = new Map<string, string>();
  for (const [key, value] of Object.entries(json)) {
    if (key === skipKey) continue;
    const field = info.byName.get(key);
    if (field === undefined) {
      fail(ctx, fieldPath(path, key), unknownFieldMessage(type, key));
    } else if (key !== field.name && Object.prototype.hasOwnProperty.call(json, field.name)) {
      fail(ctx, fieldPath(path, field.name), `set twice, as "${field.name}" and "${key}"`);
    } else if (value !== null || acceptsNull(field)) {
      if (claimOneof(field, oneofMembers, path, ctx)) setField(message, field, value, path, ctx);
    }
  }
  ctx.depth--;
  return message as unknown as protobuf.Message;
}

function unknownFieldMessage(type: protobuf.Type, key: string): string {
  const suggestion = suggestField(type, key);
  const hint = suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
  return `unknown field ${JSON.stringify(key)} in ${typeName(type)}${hint}`;
}

/** `null` means "absent", except where it is a value: `google.protobuf.Value`, `NullValue`. */
function acceptsNull(field: FieldInfo): boolean {
  if (field.repeated || field.keyType !== undefined) return false;
  const kind = field.kind;
  if (kind.t === 'message') return fullNameOf(kind.type) === '.google.protobuf.Value';
  return kind.t === 'enum' && kind.enum.fullName === '.google.protobuf.NullValue';
}

/** Records the oneof member being set; false (with a problem) if another one already is. */
function claimOneof(
  field: FieldInfo,
  members: Map<string, string>,
  path: string,
  ctx: FromContext,
): boolean {
  if (field.oneof === undefined) return true;
  const other = members.get(field.oneof);
  if (other === undefined) {
    members.set(field.oneof, field.name);
    return true;
  }
  fail(
    ctx,
    fieldPath(path, field.name),
    `oneof "${field.oneof}" has both "${other}" and "${field.name}" set; set only one`,
  );
  return false;
}

function setField(
  message: Record<string, unknown>,
  field: FieldInfo,
  value: unknown,
  path: string,
  ctx: FromContext,
): void {
  const at = fieldPath(path, field.name);
  let converted: unknown;
  if (field.keyType !== undefined) converted = mapFromJson(field, field.keyType, value, at, ctx);
  else if (field.repeated) converted = listFromJson(field.kind, value, at, ctx);
  else converted = singleFromJson(field.kind, value, at, ctx);
  if (converted === undefined || isImplicitDefault(field, converted)) return;
  message[field.name] = converted;
}

/**
 * A proto3 scalar without presence at its default is not set at all, so the encoding is
 * the canonical one (protobufjs would otherwise write `0`, `""` or `false` on the wire).
 */
function isImplicitDefault(field: FieldInfo, value: unknown): boolean {
  if (field.explicitPresence || field.repeated || field.keyType !== undefined) return false;
  const kind = field.kind;
  if (kind.t === 'scalar') return isDefaultScalar(kind.scalar, value);
  return kind.t === 'enum' && isDefaultEnum(kind.enum, value);
}

function singleFromJson(kind: ValueKind, value: unknown, path: string, ctx: FromContext): unknown {
  switch (kind.t) {
    case 'message':
      return messageFromJson(kind.type, value, path, ctx);
    case 'enum':
      return enumFromJson(kind.enum, value, path, ctx);
    case 'scalar':
      return scalarFromJson(kind.scalar, value, path, ctx);
  }
}

function listFromJson(
  kind: ValueKind,
  value: unknown,
  path: string,
  ctx: FromContext,
): unknown[] | undefined {
  if (!Array.isArray(value)) return expected(ctx, path, 'an array', value);
  const out: unknown[] = [];
  value.forEach((item, i) => {
    const converted = singleFromJson(kind, item, indexPath(path, i), ctx);
    if (converted !== undefined) out.push(converted);
  });
  return out;
}

function mapFromJson(
  field: FieldInfo,
  keyType: string,
  value: unknown,
  path: string,
  ctx: FromContext,
): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) {
    return expected(ctx, path, `an object (map<${keyType}, ${kindName(field.kind)}>)`, value);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const k = mapKeyFromJson(keyType, key, path, ctx);
    const converted = singleFromJson(field.kind, item, keyPath(path, key), ctx);
    if (k !== undefined && converted !== undefined) setEntry(out, k, converted);
  }
  return out;
}

function kindName(kind: ValueKind): string {
  if (kind.t === 'scalar') return kind.scalar;
  return typeName(kind.t === 'message' ? kind.type : kind.enum);
}

/** A type URL and the encoded bytes of the message it names (not wrapped in an Any). */
export interface PackedAny {
  typeUrl: string;
  bytes: Uint8Array;
}

function anyFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  const packed = packAnyFromJson(value, path, ctx);
  return packed && buildMessage(type, { typeUrl: packed.typeUrl, value: packed.bytes });
}

/** Converts `{"@type": …, …}` and encodes the inner message; undefined on any problem. */
export function packAnyFromJson(
  value: unknown,
  path: string,
  ctx: FromContext,
): PackedAny | undefined {
  if (!isPlainObject(value)) {
    return expected(ctx, path, 'an object with "@type" (google.protobuf.Any)', value);
  }
  const typeUrl = value['@type'];
  const at = fieldPath(path, '@type');
  if (typeUrl === undefined) return fail(ctx, at, 'missing "@type" (google.protobuf.Any)');
  if (typeof typeUrl !== 'string') return expected(ctx, at, 'a type URL string', typeUrl);
  const inner = resolveTypeUrl(typeUrl, at, ctx);
  if (inner === undefined) return undefined;
  const before = ctx.problems.length;
  const message = VALUE_FORM_TYPES.has(fullNameOf(inner))
    ? valueFormFromJson(inner, value, path, ctx)
    : objectFromJson(inner, value, path, ctx, '@type');
  if (message === undefined || ctx.problems.length > before) return undefined;
  const bytes = encodeMessage(inner, message, path, ctx);
  return bytes && { typeUrl, bytes };
}

/** `{"@type": ".../google.protobuf.Duration", "value": "1s"}` and the like. */
function valueFormFromJson(
  type: protobuf.Type,
  json: Record<string, unknown>,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  for (const key of Object.keys(json)) {
    if (key !== '@type' && key !== 'value') {
      fail(ctx, fieldPath(path, key), `unknown field ${JSON.stringify(key)} beside "@type"`);
    }
  }
  if (!('value' in json)) {
    if (fullNameOf(type) === '.google.protobuf.Empty') return type.create();
    return fail(ctx, fieldPath(path, 'value'), `missing "value" (the JSON of ${typeName(type)})`);
  }
  return messageFromJson(type, json['value'], fieldPath(path, 'value'), ctx);
}
