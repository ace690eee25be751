/**
 * Well-known types to their special canonical JSON forms (the reverse of
 * `json-well-known.ts`). `Any` is handled in `json-to.ts`.
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import { WRAPPER_TYPES as WRAPPERS } from './json-common.js';
import { ownValue, setEntry } from './json-common.js';
import { fullNameOf, messageTypeOf, requireField } from './json-schema.js';
import { defaultScalarJson, longToString, scalarToJson } from './json-scalars-to.js';
import { formatDuration, formatTimestamp } from './json-time.js';

export type WellKnownToJson = (type: protobuf.Type, message: object) => unknown;

const TO_JSON = new Map<string, WellKnownToJson>([
  ['.google.protobuf.Duration', (t, m) => formatDuration(...secondsAndNanos(t, m))],
  ['.google.protobuf.Timestamp', (t, m) => formatTimestamp(...secondsAndNanos(t, m))],
  ['.google.protobuf.Struct', structToJson],
  ['.google.protobuf.Value', valueToJson],
  ['.google.protobuf.ListValue', listValueToJson],
  ['.google.protobuf.FieldMask', fieldMaskToJson],
  ...WRAPPERS.map((w): [string, WellKnownToJson] => [`.google.protobuf.${w}`, wrapperToJson]),
]);

/** The printer for a well-known type with a special JSON form, if `type` is one. */
export function wellKnownToJson(type: protobuf.Type): WellKnownToJson | undefined {
  return TO_JSON.get(fullNameOf(type));
}

/** A field of a well-known type, by its JSON name. */
function read(type: protobuf.Type, message: object, jsonName: string): unknown {
  return ownValue(message, requireField(type, jsonName).name);
}

function secondsAndNanos(type: protobuf.Type, message: object): [number, number] {
  return [
    Number(longToString(read(type, message, 'seconds') ?? 0, false)),
    Number(read(type, message, 'nanos') ?? 0),
  ];
}

function wrapperToJson(type: protobuf.Type, message: object): unknown {
  const field = requireField(type, 'value');
  const scalar = field.kind.t === 'scalar' ? field.kind.scalar : 'string';
  const value = ownValue(message, field.name);
  return value === undefined || value === null
    ? defaultScalarJson(scalar)
    : scalarToJson(scalar, value);
}

function structToJson(type: protobuf.Type, message: object): Record<string, unknown> {
  const valueType = messageTypeOf(type, 'fields');
  const fields = read(type, message, 'fields') as Record<string, object> | null | undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    setEntry(out, key, valueToJson(valueType, value));
  }
  return out;
}

function listValueToJson(type: protobuf.Type, message: object): unknown[] {
  const valueType = messageTypeOf(type, 'values');
  const values = read(type, message, 'values') as object[] | null | undefined;
  return (values ?? []).map((v) => valueToJson(valueType, v));
}

/** The one member of `kind` that is set; an empty Value prints as null. */
function valueToJson(type: protobuf.Type, message: object): unknown {
  const number = read(type, message, 'numberValue');
  if (number !== undefined && number !== null) return number;
  const string = read(type, message, 'stringValue');
  if (string !== undefined && string !== null) return string;
  const bool = read(type, message, 'boolValue');
  if (bool !== undefined && bool !== null) return bool;
  const struct = read(type, message, 'structValue') as object | null | undefined;
  if (struct) return structToJson(messageTypeOf(type, 'structValue'), struct);
  const list = read(type, message, 'listValue') as object | null | undefined;
  if (list) return listValueToJson(messageTypeOf(type, 'listValue'), list);
  return null;
}

function fieldMaskToJson(type: protobuf.Type, message: object): string {
  const paths = read(type, message, 'paths') as string[] | null | undefined;
  return (paths ?? []).map(snakeToCamel).join(',');
}

function snakeToCamel(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
