/**
 * Shared pieces of the canonical proto3 JSON converter (`json.ts`): the conversion context,
 * field paths and the wording of "expected …, found …" problems.
 *
 * @internal
 */
import type protobuf from 'protobufjs';
import type { Problem } from '../util/problems.js';

/** State threaded through one `fromJson` call: where `@type` names resolve, what went wrong. */
export interface FromContext {
  readonly root: protobuf.Root;
  readonly problems: Problem[];
  /** Current nesting of messages and JSON values, to stop on cyclic or absurdly deep input. */
  depth: number;
}

/** State threaded through one `toJson` call. */
export interface ToContext {
  readonly root: protobuf.Root;
}

/** Deeper than this, input is rejected (protobufjs itself refuses to encode past 100 levels). */
export const MAX_DEPTH = 100;

export const ANY_TYPE = '.google.protobuf.Any';

/** Records a problem and returns undefined, so converters can `return fail(…)`. */
export function fail(ctx: FromContext, path: string, message: string): undefined {
  ctx.problems.push({ path, message });
  return undefined;
}

export function fieldPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** Map entries and Struct keys: `metadata["foo"]`. */
export function keyPath(path: string, key: string): string {
  return `${path}[${JSON.stringify(key)}]`;
}

/** A JSON object: not null, not an array, not a class instance such as a Buffer or Date. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const MAX_SHOWN = 60;

/** What a JSON value is, for messages such as `expected a string, found number 3`. */
export function describeFound(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
      return `string ${JSON.stringify(shown)}`;
    }
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** `expected <what>, found <describeFound(value)>`, recorded at `path`. */
export function expected(ctx: FromContext, path: string, what: string, value: unknown): undefined {
  return fail(ctx, path, `expected ${what}, found ${describeFound(value)}`);
}

/** A protobufjs full name without the leading dot: `envoy.config.cluster.v3.Cluster`. */
export function typeName(type: protobuf.ReflectionObject): string {
  return type.fullName.startsWith('.') ? type.fullName.slice(1) : type.fullName;
}

/**
 * Sets a key taken from input (a map key, a Struct key) as an own property, so that a key
 * named `__proto__` is kept as data instead of replacing the object's prototype.
 */
export function setEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** Reads an own property (protobufjs keeps defaults on the prototype; those mean "unset"). */
export function ownValue(message: object, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(message, name)
    ? (message as Record<string, unknown>)[name]
    : undefined;
}

/** The `google.protobuf` wrapper messages, written in JSON as bare values. */
export const WRAPPER_TYPES = [
  'DoubleValue',
  'FloatValue',
  'Int64Value',
  'UInt64Value',
  'Int32Value',
  'UInt32Value',
  'BoolValue',
  'StringValue',
  'BytesValue',
] as const;
