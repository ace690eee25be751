/**
 * protobufjs messages → canonical proto3 JSON with the .proto (snake_case) field names, as
 * Envoy's `config_dump` prints them. Fields at their default value are left out (proto3
 * implicit presence); set message fields, oneof members and proto3 `optional` fields are
 * kept even when empty or zero.
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import { ANY_TYPE, type ToContext, ownValue, setEntry } from './json-common.js';
import { lookupMessage } from './json-registry.js';
import { decodeOnly } from './codecs.js';
import {
  type FieldInfo,
  type ValueKind,
  fullNameOf,
  requireField,
  typeInfo,
} from './json-schema.js';
import {
  bytesToBase64,
  enumToJson,
  isDefaultEnum,
  isDefaultScalar,
  mapKeyToJson,
  scalarToJson,
  toBytes,
} from './json-scalars-to.js';
import { VALUE_FORM_TYPES } from './json-well-known.js';
import { wellKnownToJson } from './json-well-known-to.js';
import { messageNameOf } from './type-urls.js';

export function messageToJson(type: protobuf.Type, message: object, ctx: ToContext): unknown {
  if (fullNameOf(type) === ANY_TYPE) return anyToJson(type, message, ctx);
  const wellKnown = wellKnownToJson(type);
  if (wellKnown !== undefined) return wellKnown(type, message);
  const out: Record<string, unknown> = {};
  for (const field of typeInfo(type).fields) {
    const value = ownValue(message, field.name);
    if (value === undefined || value === null) continue;
    const json = fieldToJson(field, value, ctx);
    if (json !== undefined) out[field.name] = json;
  }
  return out;
}

/** The JSON of one field, or undefined when it is to be left out. */
function fieldToJson(field: FieldInfo, value: unknown, ctx: ToContext): unknown {
  if (field.keyType !== undefined) return mapToJson(field.kind, field.keyType, value, ctx);
  if (field.repeated) {
    if (!Array.isArray(value) || value.length === 0) return undefined;
    return value.map((item) => singleToJson(field.kind, item, ctx));
  }
  if (!field.explicitPresence && isDefault(field.kind, value)) return undefined;
  return singleToJson(field.kind, value, ctx);
}

function isDefault(kind: ValueKind, value: unknown): boolean {
  switch (kind.t) {
    case 'message':
      return false;
    case 'enum':
      return isDefaultEnum(kind.enum, value);
    case 'scalar':
      return isDefaultScalar(kind.scalar, value);
  }
}

function singleToJson(kind: ValueKind, value: unknown, ctx: ToContext): unknown {
  switch (kind.t) {
    case 'message':
      return typeof value === 'object' && value !== null
        ? messageToJson(kind.type, value, ctx)
        : null;
    case 'enum':
      return enumToJson(kind.enum, value);
    case 'scalar':
      return scalarToJson(kind.scalar, value);
  }
}

function mapToJson(kind: ValueKind, keyType: string, value: unknown, ctx: ToContext): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries)
    setEntry(out, mapKeyToJson(keyType, key), singleToJson(kind, item, ctx));
  return out;
}

/**
 * `{"@type": url, ...fields}`, or `{"@type": url, "value": <json>}` for well-known types.
 * A type URL naming no loaded message cannot be printed canonically; it comes out as
 * `{"@type": url, "value": "<base64 bytes>"}` so nothing is lost.
 */
function anyToJson(type: protobuf.Type, message: object, ctx: ToContext): unknown {
  const typeUrl = ownValue(message, requireField(type, 'typeUrl').name);
  const bytes = toBytes(ownValue(message, requireField(type, 'value').name));
  if (typeof typeUrl !== 'string' || typeUrl === '') {
    return bytes.length === 0 ? {} : { value: bytesToBase64(bytes) };
  }
  const name = messageNameOf(typeUrl);
  const inner = name === undefined ? undefined : lookupMessage(ctx.root, name);
  const decoded = inner === undefined ? undefined : tryDecode(inner, bytes);
  if (inner === undefined || decoded === undefined) {
    return { '@type': typeUrl, value: bytesToBase64(bytes) };
  }
  const json = messageToJson(inner, decoded, ctx);
  return VALUE_FORM_TYPES.has(fullNameOf(inner))
    ? { '@type': typeUrl, value: json }
    : { '@type': typeUrl, ...(json as Record<string, unknown>) };
}

function tryDecode(type: protobuf.Type, bytes: Uint8Array): protobuf.Message | undefined {
  try {
    return decodeOnly(type, bytes);
  } catch {
    return undefined;
  }
}
