/**
 * Typed input fields: one small declaration per field, used four ways — to validate input
 * (every problem with its path), to fill in defaults, to publish a JSON Schema (the OpenAPI
 * document, `GET /control/scenarios`), and to give the validated value its TypeScript type
 * (`FieldValues<typeof fields>`). Fault scenarios declare their parameters with it, and the
 * control operations (src/api/) their input, so no validator repeats a schema.
 *
 * It loads no server code: the live page and the control client use it too.
 */
import { globProblem, MAX_GLOB_LENGTH } from '../util/glob.js';
import { DURATION_HINT, parseDuration } from '../util/duration.js';
import type { Problem, Result } from '../util/problems.js';
import { GRPC_STATUS_NAMES, parseGrpcStatus } from './grpc-status.js';
import { parseTypeName, parseTypeNames, TYPE_NAME_HINT } from './types/registry.js';

export type JsonSchema = Record<string, unknown>;

interface Common<T> {
  description: string;
  default?: T;
  required?: boolean;
}

export type FieldSchema =
  | ({ type: 'integer'; min?: number; max?: number } & Common<number>)
  /** Milliseconds, or a string with units (`1.5s`, `1m30s`); validated to milliseconds. */
  | ({ type: 'duration' } & Common<number>)
  | ({ type: 'string'; minLength?: number } & Common<string>)
  /** A node-id glob such as `sidecar~*~orders-*`. */
  | ({ type: 'glob' } & Common<string>)
  | ({ type: 'boolean' } & Common<boolean>)
  | ({
      type: 'enum';
      values: readonly string[];
      valueDescriptions?: Record<string, string>;
    } & Common<string>)
  /** A list of strings (one string is a list of one). */
  | ({ type: 'strings' } & Common<readonly string[]>)
  /** Any of `values`, as a list (or one string, comma-separated from text). */
  | ({ type: 'enums'; values: readonly string[] } & Common<readonly string[]>)
  /** One resource type (`cds`, `LDS`, a type URL); validated to its type URL. */
  | ({ type: 'type' } & Common<string>)
  /** A list of resource types (short names or type URLs); validated to type URLs. */
  | ({ type: 'types' } & Common<readonly string[]>)
  /** A gRPC status code, by name (`UNAVAILABLE`) or number (14); validated to the number. */
  | ({ type: 'status' } & Common<number>)
  /**
   * Any JSON value, passed on as it is: what takes it checks it in depth (a fault's
   * parameters, a resource). `schema` documents it.
   */
  | ({ type: 'json'; schema: JsonSchema } & Common<unknown>);

export type FieldSchemas = Readonly<Record<string, FieldSchema>>;

/**
 * A field of any JSON value, documented by `schema` (a bare type name stands for
 * `{type: name}`): what takes it checks it in depth.
 */
export function jsonField(
  schema: JsonSchema | 'string' | 'object',
  description: string,
): { type: 'json'; schema: JsonSchema; description: string } {
  return {
    type: 'json',
    schema: typeof schema === 'string' ? { type: schema } : schema,
    description,
  };
}

/** The TypeScript type of one field's validated value. */
export type FieldValue<S> = S extends { type: 'integer' | 'duration' | 'status' }
  ? number
  : S extends { type: 'enum'; values: readonly (infer V)[] }
    ? V
    : S extends { type: 'enums'; values: readonly (infer V)[] }
      ? readonly V[]
      : S extends { type: 'string' | 'glob' | 'type' }
        ? string
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'strings' | 'types' }
            ? readonly string[]
            : unknown;

/** A field is always there once validated when it is required or has a default. */
type Present<S> = S extends { required: true }
  ? true
  : S extends { default: unknown }
    ? true
    : false;

type Flatten<T> = { [K in keyof T]: T[K] };

/** The type of the validated input: required and defaulted fields present, the rest optional. */
export type FieldValues<S extends FieldSchemas> = Flatten<
  { readonly [K in keyof S as Present<S[K]> extends true ? K : never]: FieldValue<S[K]> } & {
    readonly [K in keyof S as Present<S[K]> extends true ? never : K]?: FieldValue<S[K]>;
  }
>;

/** What the input is called in messages: a fault's `parameter`s, an operation's `field`s. */
export interface FieldOptions {
  /** Where the input is, for problems' paths (`params`, `steps[2].push`; default the top). */
  path?: string;
  /** Values came from text (a command-line flag): read numbers, booleans and lists from strings. */
  fromText?: boolean;
  noun?: 'parameter' | 'field';
  /**
   * Keep fields the schemas do not name, as they are, for a taker that checks the whole
   * input itself and reports them with everything else (a fault, by the engine).
   */
  keepUnknown?: boolean;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Validates `input` against `schemas` and fills in defaults, every problem with its path. */
export function validateFields<S extends FieldSchemas>(
  schemas: S,
  input: unknown,
  options: FieldOptions = {},
): Result<FieldValues<S>> {
  const { path = '', noun = 'field' } = options;
  if (
    input !== undefined &&
    (typeof input !== 'object' || input === null || Array.isArray(input))
  ) {
    const message =
      noun === 'parameter' ? 'expected an object of parameters' : 'expected a JSON object';
    return { ok: false, problems: [{ path, message }] };
  }
  const problems: Problem[] = [];
  const given = (input ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    if (Object.hasOwn(schemas, key)) continue;
    if (options.keepUnknown) {
      out[key] = given[key];
      continue;
    }
    const known = Object.keys(schemas);
    const expected =
      known.length > 0
        ? `expected one of: ${known.join(', ')}`
        : noun === 'parameter'
          ? 'this scenario takes none'
          : 'this takes none';
    problems.push({ path: join(path, key), message: `unknown ${noun}; ${expected}` });
  }
  for (const [key, schema] of Object.entries(schemas)) {
    const raw = given[key];
    const at = join(path, key);
    if (raw === undefined || raw === null) {
      if (schema.required) problems.push({ path: at, message: `required: ${schema.description}` });
      else if (schema.default !== undefined) out[key] = schema.default;
      continue;
    }
    const checked = checkValue(schema, raw, at, options.fromText === true);
    if ('problems' in checked) problems.push(...checked.problems);
    else out[key] = checked.value;
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: Object.freeze(out) as FieldValues<S> };
}

function found(value: unknown): string {
  return `found ${JSON.stringify(value)}`;
}

type Checked = { value: unknown } | { problems: Problem[] };

/** The checked value, or the problems with it. */
function checkValue(schema: FieldSchema, raw: unknown, path: string, fromText: boolean): Checked {
  const text = fromText && typeof raw === 'string';
  const problem = (message: string): Checked => ({ problems: [{ path, message }] });
  switch (schema.type) {
    case 'integer': {
      const value = text && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      const min = schema.min ?? Number.MIN_SAFE_INTEGER;
      const max = schema.max ?? Number.MAX_SAFE_INTEGER;
      if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) {
        return { value };
      }
      return problem(`expected an integer${rangeText(schema.min, schema.max)}, ${found(raw)}`);
    }
    case 'duration': {
      const ms = parseDuration(raw);
      return ms === undefined ? problem(`expected ${DURATION_HINT}, ${found(raw)}`) : { value: ms };
    }
    case 'string':
      if (typeof raw === 'string' && raw.length >= (schema.minLength ?? 0)) return { value: raw };
      return problem(`expected a${schema.minLength ? ' non-empty' : ''} string, ${found(raw)}`);
    case 'glob': {
      const wrong = globProblem(raw);
      return wrong === undefined ? { value: raw as string } : problem(wrong);
    }
    case 'boolean': {
      const value = text ? ({ true: true, false: false } as Record<string, boolean>)[raw] : raw;
      return typeof value === 'boolean'
        ? { value }
        : problem(`expected true or false, ${found(raw)}`);
    }
    case 'enum':
      if (typeof raw === 'string' && schema.values.includes(raw)) return { value: raw };
      return problem(`expected one of: ${schema.values.join(', ')}; ${found(raw)}`);
    case 'strings': {
      const list: unknown = typeof raw === 'string' ? (text ? raw.split(',') : [raw]) : raw;
      if (Array.isArray(list) && list.every((s) => typeof s === 'string')) {
        return { value: Object.freeze([...list]) };
      }
      return problem(`expected a string or a list of strings, ${found(raw)}`);
    }
    case 'enums': {
      const list: unknown = typeof raw === 'string' ? raw.split(',') : raw;
      const names: unknown[] = Array.isArray(list) ? list : [];
      // Any case (`ACK`), each read as the value it names.
      const named = (v: unknown) =>
        typeof v === 'string'
          ? schema.values.find((value) => value.toLowerCase() === v.trim().toLowerCase())
          : undefined;
      const wanted = names.filter((v) => typeof v !== 'string' || v.trim() !== '');
      const unknown = wanted.filter((v) => named(v) === undefined);
      if (Array.isArray(list) && unknown.length === 0) {
        return { value: Object.freeze(wanted.map((v) => named(v) ?? '')) };
      }
      return problem(
        `expected any of ${schema.values.join(', ')}; ${Array.isArray(list) ? `unknown ${unknown.map((v) => JSON.stringify(v)).join(', ')}` : found(raw)}`,
      );
    }
    case 'type': {
      const typeUrl = parseTypeName(raw);
      return typeUrl === undefined
        ? problem(`expected ${TYPE_NAME_HINT}, ${found(raw)}`)
        : { value: typeUrl };
    }
    case 'types': {
      const types = parseTypeNames(text ? raw.split(/[+,]/) : raw, path);
      return types.ok ? { value: Object.freeze(types.value) } : { problems: types.problems };
    }
    case 'status': {
      const code = parseGrpcStatus(text && /^\d+$/.test(raw) ? Number(raw) : raw);
      return code === undefined ? problem(statusHint(raw)) : { value: code };
    }
    case 'json':
      return { value: raw };
  }
}

function rangeText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  return max !== undefined ? ` ≤ ${max}` : '';
}

/** What a status field expects, and what it found. */
export function statusHint(raw: unknown): string {
  return `expected a gRPC status name (${GRPC_STATUS_NAMES.join(', ')}) or number 0-16, ${found(raw)}`;
}

/** A JSON Schema (draft 2020-12) of the fields, for API clients and docs. */
export function fieldsJsonSchema(schemas: FieldSchemas): JsonSchema {
  const properties: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(schemas)) properties[key] = fieldJsonSchema(schema);
  const required = Object.entries(schemas)
    .filter(([, s]) => s.required)
    .map(([k]) => k);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function fieldJsonSchema(schema: FieldSchema): JsonSchema {
  const common = {
    description: schema.description,
    ...(schema.default !== undefined ? { default: schema.default } : {}),
  };
  switch (schema.type) {
    case 'integer':
      return { type: 'integer', minimum: schema.min, maximum: schema.max, ...common };
    case 'duration':
      return {
        oneOf: [
          { type: 'integer', minimum: 0, description: 'milliseconds' },
          { type: 'string', pattern: '^(\\d+(\\.\\d+)?(ms|s|m|h))+$' },
        ],
        ...common,
      };
    case 'string':
      return { type: 'string', minLength: schema.minLength, ...common };
    case 'glob':
      return { type: 'string', minLength: 1, maxLength: MAX_GLOB_LENGTH, ...common };
    case 'boolean':
      return { type: 'boolean', ...common };
    case 'enum':
      return {
        type: 'string',
        enum: schema.values,
        ...(schema.valueDescriptions ? { 'x-enum-descriptions': schema.valueDescriptions } : {}),
        ...common,
      };
    case 'strings':
      return {
        oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
        ...common,
      };
    case 'enums':
      return {
        oneOf: [
          { type: 'string', description: 'comma-separated' },
          { type: 'array', items: { type: 'string', enum: schema.values } },
        ],
        ...common,
      };
    case 'type':
      return { type: 'string', ...common };
    case 'types':
      return {
        oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
        ...common,
      };
    case 'status':
      return {
        oneOf: [
          { type: 'string', enum: GRPC_STATUS_NAMES },
          { type: 'integer', minimum: 0, maximum: 16 },
        ],
        ...common,
      };
    case 'json':
      return { ...schema.schema, ...common };
  }
}
