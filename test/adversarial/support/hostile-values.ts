/**
 * Values a caller may put in any field of a control operation, by the field's declared type
 * (src/core/fields.ts): the wrong type, the empty and the huge, the shapes that break naive
 * parsers (deep nesting, `__proto__`), and for globs the patterns that make a backtracking
 * matcher take exponential time.
 */
import type { FieldSchema } from '../../../src/core/fields.js';

/** `[[[…]]]` nested `depth` deep, as JSON text. */
export const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A glob that a regex `^.*a.*a…X$` takes exponential time to refuse on a long id of a's. */
export const EXPONENTIAL_GLOB = `${'*a'.repeat(24)}*X`;

const ANY: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  '',
  ' ',
  '\u0000',
  'x'.repeat(100_000),
  '../../../../etc/passwd',
  '%00%ff',
  '파드',
  '\ud800',
  {},
  [],
  [[[[[[[[[[[]]]]]]]]]]],
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
];

const BY_TYPE: Record<FieldSchema['type'], unknown[]> = {
  integer: [2 ** 53 + 1, -0, 1.5, '7', -1e308, Number.MAX_SAFE_INTEGER],
  duration: ['1e400s', '99999999999999h', '-1s', '1.5.5s', 'NaN', '0ms', 2 ** 53, '1ms'],
  string: ['s'.repeat(1_000_000 - 100)],
  glob: [EXPONENTIAL_GLOB, '*'.repeat(10_000), '?'.repeat(10_000), '[a-', '\\', '(a+)+$'],
  boolean: ['true', 1, 'yes'],
  enum: ['ALL', 'x'.repeat(10_000)],
  strings: [Array.from({ length: 100_000 }, (_, i) => `s${i}`), ['x'.repeat(100_000)]],
  enums: ['a,'.repeat(10_000), [null]],
  type: ['LDS', 'type.googleapis.com/' + 'x'.repeat(10_000), 'lds ', 'LDS,CDS'],
  types: ['LDS,'.repeat(10_000), ['LDS', 'LDS', 'LDS'], []],
  status: [17, -1, 'UNAVAILABLE ', 'unavailable', 2 ** 31],
  json: [deepJson(5_000), { resources: Array.from({ length: 1000 }, () => ({ '@type': 'x' })) }],
};

/** Hostile values for a field of this type: its own kind first, then any. */
export function hostileValues(schema: FieldSchema): unknown[] {
  return [...BY_TYPE[schema.type], ...ANY];
}

/** A value as a query string writes it. */
export function queryText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}
