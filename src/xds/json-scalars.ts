/**
 * Scalars and enums in canonical proto3 JSON
 * (https://protobuf.dev/programming-guides/json/#json-options), both ways.
 *
 * 64-bit integers are handed to protobufjs as decimal strings: its writer turns a string into
 * a `Long` (`LongBits.from` → `Long.fromString`), which keeps every bit, including values
 * above 2^53 and the full uint64 range. Coming back they are `Long`s, printed as strings.
 *
 * @internal
 */
import { Buffer } from 'node:buffer';
import type protobuf from 'protobufjs';
import { type FromContext, expected, fail, keyPath, typeName } from './json-common.js';

/** The integer types: their range, and whether they are 64-bit (handed on as strings). */
const INTEGERS = new Map<string, { min: bigint; max: bigint; wide: boolean }>([
  ['int32', { min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false }],
  ['sint32', { min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false }],
  ['sfixed32', { min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false }],
  ['uint32', { min: 0n, max: 2n ** 32n - 1n, wide: false }],
  ['fixed32', { min: 0n, max: 2n ** 32n - 1n, wide: false }],
  ['int64', { min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true }],
  ['sint64', { min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true }],
  ['sfixed64', { min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true }],
  ['uint64', { min: 0n, max: 2n ** 64n - 1n, wide: true }],
  ['fixed64', { min: 0n, max: 2n ** 64n - 1n, wide: true }],
]);

const SPECIAL_FLOATS = new Map([
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
]);

const FLOAT_MAX = 3.4028234663852886e38;
const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const BASE64_TEXT = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Converts a JSON scalar to what protobufjs encodes for a field of this scalar type. */
export function scalarFromJson(
  scalar: string,
  value: unknown,
  path: string,
  ctx: FromContext,
): unknown {
  const integer = INTEGERS.get(scalar);
  if (integer) {
    const big = integerFromJson(value);
    if (big === undefined) return expected(ctx, path, `an integer (${scalar})`, value);
    if (big < integer.min || big > integer.max) {
      return fail(ctx, path, `${String(value)} is out of range for ${scalar}`);
    }
    return integer.wide ? big.toString() : Number(big);
  }
  switch (scalar) {
    case 'float':
    case 'double':
      return floatFromJson(scalar, value, path, ctx);
    case 'bool':
      return typeof value === 'boolean' ? value : expected(ctx, path, 'a boolean', value);
    case 'string':
      return typeof value === 'string' ? value : expected(ctx, path, 'a string', value);
    case 'bytes':
      return bytesFromJson(value, path, ctx);
    default:
      return fail(ctx, path, `unsupported scalar type ${scalar}`);
  }
}

/**
 * An integer as JSON may write it: a number, or a string of digits or of an exact number
 * (`"1e3"`, a 64-bit value beyond 2^53 only as digits); undefined for anything else.
 */
function integerFromJson(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'string') return undefined;
  if (INTEGER_TEXT.test(value)) return BigInt(value);
  if (!NUMBER_TEXT.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? BigInt(n) : undefined;
}

function floatFromJson(
  scalar: string,
  value: unknown,
  path: string,
  ctx: FromContext,
): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    n = SPECIAL_FLOATS.get(value) ?? (NUMBER_TEXT.test(value) ? Number(value) : undefined);
  }
  if (n === undefined) return expected(ctx, path, `a number (${scalar})`, value);
  if (scalar === 'float' && Number.isFinite(n) && Math.abs(n) > FLOAT_MAX) {
    return fail(ctx, path, `${String(value)} is out of range for float`);
  }
  return n;
}

function bytesFromJson(value: unknown, path: string, ctx: FromContext): Uint8Array | undefined {
  if (typeof value !== 'string') return expected(ctx, path, 'a base64 string (bytes)', value);
  const unpadded = value.replace(/=+$/, '');
  if (!BASE64_TEXT.test(value) || unpadded.length % 4 === 1) {
    return expected(ctx, path, 'a base64 string (bytes)', value);
  }
  // Node's decoder reads both the standard and the URL-safe alphabet.
  return Buffer.from(value, 'base64');
}

/** An enum from its value name or number; `null` is the one value of `NullValue`. */
export function enumFromJson(
  en: protobuf.Enum,
  value: unknown,
  path: string,
  ctx: FromContext,
): number | undefined {
  if (value === null && en.fullName === '.google.protobuf.NullValue') return 0;
  if (typeof value === 'string') {
    const n = Object.prototype.hasOwnProperty.call(en.values, value) ? en.values[value] : undefined;
    if (n !== undefined) return n;
    const names = Object.keys(en.values).join(', ');
    return fail(
      ctx,
      path,
      `unknown value ${JSON.stringify(value)} for enum ${typeName(en)}; expected one of ${names}`,
    );
  }
  // Proto3 enums are open: numbers without a name are kept, as protobuf does.
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 0x7fffffff) {
    return value;
  }
  return expected(ctx, path, `an enum value name or number (${typeName(en)})`, value);
}

/** A JSON object key converted to the map's key type (kept as a canonical string). */
export function mapKeyFromJson(
  keyType: string,
  key: string,
  path: string,
  ctx: FromContext,
): string | undefined {
  const at = keyPath(path, key);
  if (keyType === 'string') return key;
  if (keyType === 'bool') {
    // protobufjs writes `Object.keys` strings with `w.bool(key)`, so "false" would encode as
    // true; no Envoy map is keyed by bool, so refuse rather than encode the wrong thing.
    return fail(ctx, at, 'maps with bool keys are not supported');
  }
  if (!INTEGER_TEXT.test(key)) return expected(ctx, at, `an integer key (${keyType})`, key);
  // Integer scalars come back as a number (32-bit) or a decimal string (64-bit).
  const converted = scalarFromJson(keyType, key, at, ctx) as number | string | undefined;
  return converted === undefined ? undefined : `${converted}`;
}
