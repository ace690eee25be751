/**
 * Parameter schemas of fault scenarios: one small declaration per parameter, used three
 * ways — to validate input (every problem with its path), to fill in defaults, and to
 * publish a JSON Schema for each scenario (`GET /control/scenarios`).
 */
import * as grpc from '@grpc/grpc-js';
import type { Problem, Result } from '../util/problems.js';
import { DURATION_HINT, parseDuration } from './duration.js';
import { parseTypeNames } from '../core/types/registry.js';

interface Common<T> {
  description: string;
  default?: T;
  required?: boolean;
}

export type ParamSchema =
  | ({ type: 'integer'; min?: number; max?: number } & Common<number>)
  | ({ type: 'duration' } & Common<number>)
  | ({ type: 'string'; minLength?: number } & Common<string>)
  | ({ type: 'boolean' } & Common<boolean>)
  | ({
      type: 'enum';
      values: readonly string[];
      valueDescriptions?: Record<string, string>;
    } & Common<string>)
  /** A list of resource types (short names or type URLs); validated to type URLs. */
  | ({ type: 'types' } & Common<readonly string[]>)
  /** A gRPC status code, by name (`UNAVAILABLE`) or number (14); validated to the number. */
  | ({ type: 'status' } & Common<number>);

export type ParamSchemas = Readonly<Record<string, ParamSchema>>;

export type Params = Readonly<Record<string, unknown>>;

export interface ParamOptions {
  /** Values came from text (a command-line flag): read numbers and booleans from strings. */
  fromText?: boolean;
}

/** Validates `input` against `schemas` and fills in defaults; problems are under `path`. */
export function validateParams(
  schemas: ParamSchemas,
  input: unknown,
  path = 'params',
  options: ParamOptions = {},
): Result<Params> {
  const problems: Problem[] = [];
  if (
    input !== undefined &&
    (typeof input !== 'object' || input === null || Array.isArray(input))
  ) {
    return { ok: false, problems: [{ path, message: 'expected an object of parameters' }] };
  }
  const given = (input ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(schemas, key)) {
      const known = Object.keys(schemas);
      const expected =
        known.length > 0 ? `expected one of: ${known.join(', ')}` : 'this scenario takes none';
      problems.push({ path: `${path}.${key}`, message: `unknown parameter; ${expected}` });
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(schemas)) {
    const raw = given[key];
    if (raw === undefined || raw === null) {
      if (schema.required)
        problems.push({ path: `${path}.${key}`, message: `required: ${schema.description}` });
      else if (schema.default !== undefined) out[key] = schema.default;
      continue;
    }
    const checked = checkValue(schema, raw, options);
    if (typeof checked === 'string') problems.push({ path: `${path}.${key}`, message: checked });
    else out[key] = checked.value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: Object.freeze(out) };
}

function found(value: unknown): string {
  return `found ${JSON.stringify(value)}`;
}

/** The checked value, or a message saying what was expected. */
function checkValue(
  schema: ParamSchema,
  raw: unknown,
  options: ParamOptions,
): { value: unknown } | string {
  const text = options.fromText === true && typeof raw === 'string';
  switch (schema.type) {
    case 'integer': {
      const value = text && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      const min = schema.min ?? Number.MIN_SAFE_INTEGER;
      const max = schema.max ?? Number.MAX_SAFE_INTEGER;
      if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) {
        return { value };
      }
      return `expected an integer${rangeText(schema.min, schema.max)}, ${found(raw)}`;
    }
    case 'duration': {
      const ms = parseDuration(raw);
      return ms === undefined ? `expected ${DURATION_HINT}, ${found(raw)}` : { value: ms };
    }
    case 'string':
      if (typeof raw === 'string' && raw.length >= (schema.minLength ?? 0)) return { value: raw };
      return `expected a${schema.minLength ? ' non-empty' : ''} string, ${found(raw)}`;
    case 'boolean': {
      const value = text ? ({ true: true, false: false } as Record<string, boolean>)[raw] : raw;
      return typeof value === 'boolean' ? { value } : `expected true or false, ${found(raw)}`;
    }
    case 'enum':
      if (typeof raw === 'string' && schema.values.includes(raw)) return { value: raw };
      return `expected one of: ${schema.values.join(', ')}; ${found(raw)}`;
    case 'types':
      return checkTypes(text ? raw.split(/[+,]/) : raw);
    case 'status':
      return checkStatus(text && /^\d+$/.test(raw) ? Number(raw) : raw);
  }
}

function rangeText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  return max !== undefined ? ` ≤ ${max}` : '';
}

function checkTypes(raw: unknown): { value: readonly string[] } | string {
  const types = parseTypeNames(raw, '');
  if (types.ok) return { value: Object.freeze(types.value) };
  return types.problems.map((p) => p.message).join('; ');
}

/** gRPC status names, as grpc-js spells them (`UNAVAILABLE`, `PERMISSION_DENIED`). */
const STATUS_NAMES = Object.keys(grpc.status).filter((k) => !/^\d+$/.test(k));

export function checkStatus(raw: unknown): { value: number } | string {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 16)
    return { value: raw };
  if (typeof raw === 'string') {
    const code = (grpc.status as unknown as Record<string, number>)[raw.toUpperCase()];
    if (code !== undefined) return { value: code };
  }
  return `expected a gRPC status name (${STATUS_NAMES.join(', ')}) or number 0-16, ${found(raw)}`;
}

/** The name of a gRPC status code (`14` → `UNAVAILABLE`). */
export function statusName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? String(code);
}

/** A JSON Schema (draft 2020-12) describing the parameters, for API clients and docs. */
export function paramsJsonSchema(schemas: ParamSchemas): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(schemas)) properties[key] = propertySchema(schema);
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

function propertySchema(schema: ParamSchema): Record<string, unknown> {
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
    case 'boolean':
      return { type: 'boolean', ...common };
    case 'enum':
      return {
        type: 'string',
        enum: schema.values,
        ...(schema.valueDescriptions ? { 'x-enum-descriptions': schema.valueDescriptions } : {}),
        ...common,
      };
    case 'types':
      return { type: 'array', items: { type: 'string' }, minItems: 1, ...common };
    case 'status':
      return {
        oneOf: [
          { type: 'string', enum: STATUS_NAMES },
          { type: 'integer', minimum: 0, maximum: 16 },
        ],
        ...common,
      };
  }
}
