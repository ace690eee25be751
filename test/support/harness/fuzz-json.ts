/**
 * Seeded, structure-aware JSON inputs: values made from a JSON Schema (the subset the control
 * API's OpenAPI document uses), and valid values mutated one field at a time (a wrong type, an
 * odd number, a huge or strange string, a field removed or added, deep nesting, prototype
 * keys). Used by the control API fuzz (fuzz-control.ts).
 */
type Rand = () => number;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

export const pick = <T>(rand: Rand, list: readonly T[]): T =>
  list[Math.floor(rand() * list.length)] as T;

/** `depth` arrays inside each other: `[[[…]]]`. */
export function nested(depth: number): Json {
  let value: Json = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const ODD_VALUES: readonly (() => Json)[] = [
  () => null,
  () => true,
  () => -1,
  () => 0,
  () => -0,
  () => 1.5,
  () => 1e308,
  () => -1e308,
  () => 4294967296,
  () => Number.MAX_SAFE_INTEGER + 2,
  () => '',
  () => ' ',
  () => 'x'.repeat(10_000),
  () => '\u0000',
  () => '\ud800',
  () => 'ünïcødé 🙂',
  () => '../../../etc/passwd',
  () => '1s',
  () => '-5ms',
  () => '99999999999h',
  () => 'NaN',
  () => '__proto__',
  () => [],
  () => ({}),
  () => nested(64),
  () => nested(1_000),
  () => JSON.parse('{"__proto__": {"polluted": true}}') as Json,
  () => ({ constructor: { prototype: { polluted: true } } }),
  () => Array.from({ length: 2_000 }, (_, i) => `item-${i}`),
];

export function oddValue(rand: Rand): Json {
  return pick(rand, ODD_VALUES)();
}

/** A value that satisfies `schema` (often), with random choices. */
export function fromSchema(rand: Rand, schema: Schema, depth = 0): Json {
  if (Array.isArray(schema['oneOf'])) {
    return fromSchema(rand, pick(rand, schema['oneOf'] as Schema[]), depth);
  }
  if ('const' in schema) return schema['const'] as Json;
  if (Array.isArray(schema['enum'])) return pick(rand, schema['enum'] as Json[]);
  const type: unknown = Array.isArray(schema['type'])
    ? pick(rand, schema['type'] as string[])
    : schema['type'];
  switch (type) {
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((schema['required'] ?? []) as string[]);
      const out: Record<string, Json> = {};
      for (const [key, sub] of Object.entries(properties)) {
        if (depth < 6 && (required.has(key) || rand() < 0.5)) {
          out[key] = fromSchema(rand, sub, depth + 1);
        }
      }
      return out;
    }
    case 'array': {
      const items = (schema['items'] ?? {}) as Schema;
      const min = Number(schema['minItems'] ?? 0);
      const n = min + Math.floor(rand() * 3);
      return depth > 6 ? [] : Array.from({ length: n }, () => fromSchema(rand, items, depth + 1));
    }
    case 'integer': {
      const min = Number(schema['minimum'] ?? 0);
      const max = Number(schema['maximum'] ?? min + 5_000);
      return min + Math.floor(rand() * (max - min + 1));
    }
    case 'number':
      return rand() * 1000;
    case 'boolean':
      return rand() < 0.5;
    case 'string':
      return typeof schema['pattern'] === 'string' ? pick(rand, ['100ms', '1s', '2m']) : 'x';
    default:
      return oddValue(rand);
  }
}

/** Every path into `value` (object keys, array indexes), the root as []. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(prefix);
  if (out.length > 500) return out;
  if (Array.isArray(value)) value.slice(0, 20).forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  }
  return out;
}

/** `value` (not changed) with one field mutated. */
export function mutateJson(rand: Rand, value: Json): Json {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  const path = pick(rand, paths(copy));
  if (path.length === 0) return rand() < 0.5 ? oddValue(rand) : [copy, copy];
  const key = path[path.length - 1] as string | number;
  let parent = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  switch (Math.floor(rand() * 5)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      break;
    case 1:
      if (!Array.isArray(parent))
        parent[pick(rand, ['extra', '__proto__', 'constructor', ''])] = oddValue(rand);
      else parent.push(oddValue(rand));
      break;
    case 2:
      parent[key] = [parent[key] as Json];
      break;
    default:
      parent[key] = oddValue(rand);
  }
  return copy;
}

/** A JSON text of nothing in particular: random scalars, arrays and objects. */
export function randomJson(rand: Rand, depth = 0): Json {
  const r = rand();
  if (depth > 4 || r < 0.4) return oddValue(rand);
  if (r < 0.7)
    return Array.from({ length: Math.floor(rand() * 4) }, () => randomJson(rand, depth + 1));
  const out: Record<string, Json> = {};
  for (let i = 0; i < rand() * 4; i++)
    out[pick(rand, ['a', 'resources', 'scenario', 'node', '@type', 'params'])] = randomJson(
      rand,
      depth + 1,
    );
  return out;
}

/** Raw bodies: truncated JSON, invalid UTF-8, binary noise, odd text, very deep nesting. */
export function notJson(rand: Rand, valid: string): Buffer {
  switch (Math.floor(rand() * 5)) {
    case 0:
      return Buffer.from(valid.slice(0, Math.floor(rand() * valid.length)));
    case 1:
      return Buffer.concat([Buffer.from(valid), Buffer.from([0xff, 0xfe, 0xc3])]);
    case 2:
      return Buffer.from(
        Array.from({ length: Math.floor(rand() * 256) }, () => Math.floor(rand() * 256)),
      );
    case 3:
      return Buffer.from(
        pick(rand, ['{', ']', '{"a":}', "{'a':1}", 'NaN', 'undefined', '{"a":1,}', '\u0000']),
      );
    default:
      // Deeper than any recursive walk survives: unterminated, or valid JSON.
      return Buffer.from(
        rand() < 0.5
          ? '['.repeat(100_000)
          : `{"resources":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      );
  }
}
