/**
 * Scalars and enums from protobufjs values to canonical proto3 JSON: 64-bit integers as
 * decimal strings, non-finite floats as "NaN"/"Infinity", bytes as base64, enums by name.
 * Accepts what `decode` produces (`Long`, `Uint8Array`, enum numbers) and what `toObject`
 * or hand-written objects hold (strings, numbers, base64 strings, enum names).
 *
 * @internal
 */
import { Buffer } from 'node:buffer';
import protobuf from 'protobufjs';

interface LongLike {
  low: number;
  high: number;
}

function isLongLike(value: unknown): value is LongLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LongLike).low === 'number' &&
    typeof (value as LongLike).high === 'number'
  );
}

const UNSIGNED_64 = new Set(['uint64', 'fixed64']);
const LONG_SCALARS = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

export function scalarToJson(scalar: string, value: unknown): unknown {
  if (LONG_SCALARS.has(scalar)) return longToString(value, UNSIGNED_64.has(scalar));
  switch (scalar) {
    case 'float':
      return floatToJson(Number(value));
    case 'double':
      return doubleToJson(Number(value));
    case 'bytes':
      return bytesToBase64(value);
    case 'bool':
      return Boolean(value);
    case 'string':
      return String(value);
    default:
      return Number(value);
  }
}

/** Whether a scalar holds its proto3 default (and is omitted under implicit presence). */
export function isDefaultScalar(scalar: string, value: unknown): boolean {
  if (LONG_SCALARS.has(scalar)) return longToString(value, false) === '0';
  switch (scalar) {
    case 'bytes':
      return bytesToBase64(value) === '';
    case 'bool':
      return value === false;
    case 'string':
      return value === '';
    default:
      return Number(value) === 0;
  }
}

/** The JSON of a wrapper or field left at its default (e.g. an empty `BoolValue`). */
export function defaultScalarJson(scalar: string): unknown {
  if (LONG_SCALARS.has(scalar)) return '0';
  if (scalar === 'bool') return false;
  if (scalar === 'string' || scalar === 'bytes') return '';
  return 0;
}

export function longToString(value: unknown, unsigned: boolean): string {
  if (typeof value === 'string') return looksDecimal(value) ? value : hashToString(value, unsigned);
  if (typeof value === 'number') return BigInt(Math.trunc(value)).toString();
  if (typeof value === 'bigint') return value.toString();
  if (isLongLike(value)) {
    if (value.high === 0) return String(value.low >>> 0);
    const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
    return (unsigned ? BigInt.asUintN(64, bits) : BigInt.asIntN(64, bits)).toString();
  }
  return String(value);
}

function looksDecimal(text: string): boolean {
  return /^-?\d+$/.test(text);
}

/** protobufjs decodes 64-bit map keys to 8-character "hash" strings; turn them back. */
function hashToString(hash: string, unsigned: boolean): string {
  if (hash.length !== 8) return hash;
  return longToString(protobuf.util.LongBits.fromHash(hash).toLong(unsigned), unsigned);
}

/** 64-bit map keys as decoded by protobufjs (hash strings) or given as decimal strings. */
export function mapKeyToJson(keyType: string, key: string): string {
  return LONG_SCALARS.has(keyType) ? longToString(key, UNSIGNED_64.has(keyType)) : key;
}

function doubleToJson(value: number): number | string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return value;
}

/** Prints a float32 with the fewest digits that read back to the same float (0.1, not 0.1000000015). */
function floatToJson(value: number): number | string {
  if (!Number.isFinite(value) || Math.fround(value) !== value) return doubleToJson(value);
  for (let digits = 1; digits < 9; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

export function bytesToBase64(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  }
  if (Array.isArray(value)) return Buffer.from(value as number[]).toString('base64');
  return '';
}

/** Bytes in any of the forms `bytesToBase64` accepts, as a Uint8Array. */
export function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value, 'base64');
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  return new Uint8Array(0);
}

export function enumToJson(en: protobuf.Enum, value: unknown): unknown {
  if (en.name === 'NullValue' && en.fullName === '.google.protobuf.NullValue') return null;
  if (typeof value === 'string') return value;
  return en.valuesById[Number(value)] ?? Number(value);
}

/** Whether an enum holds its default (the value numbered 0), by number or by name. */
export function isDefaultEnum(en: protobuf.Enum, value: unknown): boolean {
  return typeof value === 'string' ? en.values[value] === 0 : Number(value) === 0;
}
