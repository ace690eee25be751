/**
 * Well-known types whose canonical JSON is not a plain object of their fields: Duration and
 * Timestamp as strings, wrappers as bare values, Struct / Value / ListValue as plain JSON,
 * FieldMask as a comma-separated string. `Any` lives in `json-from.ts` (it recurses into
 * arbitrary messages). Field names are looked up by their JSON name, because protobufjs
 * serves these types from its bundled definitions with camelCase names (`nullValue`) even
 * when the rest of the root keeps snake_case.
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import { WRAPPER_TYPES as WRAPPERS } from './json-common.js';
import {
  ANY_TYPE,
  type FromContext,
  MAX_DEPTH,
  expected,
  fail,
  indexPath,
  isPlainObject,
  keyPath,
  setEntry,
} from './json-common.js';
import { fullNameOf, messageTypeOf, requireField } from './json-schema.js';
import { scalarFromJson } from './json-scalars.js';
import { isDefaultScalar } from './json-scalars-to.js';
import {
  DURATION_FORM,
  type SecondsAndNanos,
  TIMESTAMP_FORM,
  parseDuration,
  parseTimestamp,
} from './json-time.js';

export type WellKnownFromJson = (
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
) => protobuf.Message | undefined;

const FROM_JSON = new Map<string, WellKnownFromJson>([
  ['.google.protobuf.Duration', timeFromJson(parseDuration, `a duration string ${DURATION_FORM}`)],
  ['.google.protobuf.Timestamp', timeFromJson(parseTimestamp, TIMESTAMP_FORM)],
  ['.google.protobuf.Struct', structFromJson],
  ['.google.protobuf.Value', valueFromJson],
  ['.google.protobuf.ListValue', listValueFromJson],
  ['.google.protobuf.FieldMask', fieldMaskFromJson],
  ...WRAPPERS.map((w): [string, WellKnownFromJson] => [`.google.protobuf.${w}`, wrapperFromJson]),
]);

/**
 * Types that, packed in an `Any`, appear as `{"@type": …, "value": <their JSON>}` rather
 * than with their fields inlined. Empty is listed as protobuf-go does; on input the bare
 * `{"@type": ".../google.protobuf.Empty"}` is accepted too.
 */
export const VALUE_FORM_TYPES: ReadonlySet<string> = new Set([
  ...FROM_JSON.keys(),
  ANY_TYPE,
  '.google.protobuf.Empty',
]);

/** The converter for a well-known type with a special JSON form, if `type` is one. */
export function wellKnownFromJson(type: protobuf.Type): WellKnownFromJson | undefined {
  return FROM_JSON.get(fullNameOf(type));
}

/** Creates a message and sets fields named by their JSON names. */
export function buildMessage(
  type: protobuf.Type,
  values: Readonly<Record<string, unknown>>,
): protobuf.Message {
  const message = type.create() as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(values)) {
    message[requireField(type, name).name] = value;
  }
  return message as unknown as protobuf.Message;
}

function timeFromJson(
  parse: (text: string) => SecondsAndNanos | string,
  form: string,
): WellKnownFromJson {
  return (type, value, path, ctx) => {
    if (typeof value !== 'string') return expected(ctx, path, form, value);
    const parsed = parse(value);
    if (typeof parsed === 'string') return fail(ctx, path, parsed);
    // Zero parts are left unset, as a proto3 encoder leaves them off the wire.
    return buildMessage(type, {
      ...(parsed.seconds !== 0 && { seconds: parsed.seconds }),
      ...(parsed.nanos !== 0 && { nanos: parsed.nanos }),
    });
  };
}

function wrapperFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  const field = requireField(type, 'value');
  if (field.kind.t !== 'scalar') return fail(ctx, path, `unsupported wrapper ${type.fullName}`);
  const converted = scalarFromJson(field.kind.scalar, value, path, ctx);
  if (converted === undefined) return undefined;
  // A wrapper holding its default (`false`, `0`) is present but has no bytes inside.
  return buildMessage(
    type,
    isDefaultScalar(field.kind.scalar, converted) ? {} : { value: converted },
  );
}

function structFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (!isPlainObject(value)) return expected(ctx, path, 'a JSON object (Struct)', value);
  const valueType = messageTypeOf(type, 'fields');
  const fields: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const converted = valueFromJson(valueType, item, keyPath(path, key), ctx);
    if (converted !== undefined) setEntry(fields, key, converted);
  }
  return buildMessage(type, { fields });
}

function listValueFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (!Array.isArray(value)) return expected(ctx, path, 'a JSON array (ListValue)', value);
  const valueType = messageTypeOf(type, 'values');
  const values: protobuf.Message[] = [];
  value.forEach((item, i) => {
    const converted = valueFromJson(valueType, item, indexPath(path, i), ctx);
    if (converted !== undefined) values.push(converted);
  });
  return buildMessage(type, { values });
}

function valueFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (ctx.depth >= MAX_DEPTH) return fail(ctx, path, `nested deeper than ${MAX_DEPTH} levels`);
  ctx.depth++;
  try {
    return valueKindFromJson(type, value, path, ctx);
  } finally {
    ctx.depth--;
  }
}

function valueKindFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (value === null) return buildMessage(type, { nullValue: 0 });
  if (typeof value === 'number') return buildMessage(type, { numberValue: value });
  if (typeof value === 'string') return buildMessage(type, { stringValue: value });
  if (typeof value === 'boolean') return buildMessage(type, { boolValue: value });
  if (Array.isArray(value)) {
    const list = listValueFromJson(messageTypeOf(type, 'listValue'), value, path, ctx);
    return list === undefined ? undefined : buildMessage(type, { listValue: list });
  }
  if (isPlainObject(value)) {
    const struct = structFromJson(messageTypeOf(type, 'structValue'), value, path, ctx);
    return struct === undefined ? undefined : buildMessage(type, { structValue: struct });
  }
  return expected(ctx, path, 'a JSON value', value);
}

function fieldMaskFromJson(
  type: protobuf.Type,
  value: unknown,
  path: string,
  ctx: FromContext,
): protobuf.Message | undefined {
  if (typeof value !== 'string') {
    return expected(ctx, path, 'a comma-separated string of field paths (FieldMask)', value);
  }
  const paths = value === '' ? [] : value.split(',').map(camelToSnake);
  return buildMessage(type, { paths });
}

/** FieldMask paths are lowerCamelCase in JSON and snake_case in the message. */
function camelToSnake(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
