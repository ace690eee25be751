import { describe, expect, it } from 'vitest';
import { formatMs, parseDuration } from '../../src/util/duration.js';
import { matchesGlob } from '../../src/util/glob.js';
import { fieldsJsonSchema, validateFields, type FieldSchemas } from '../../src/core/fields.js';
import { jittered, seededRandom } from '../../src/faults/random.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

describe('durations', () => {
  it.each([
    [250, 250],
    ['250', 250],
    ['500ms', 500],
    ['1.5s', 1_500],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['596h', 2_145_600_000],
    [2 ** 31 - 1, 2 ** 31 - 1],
  ])('%j is %d ms', (input, ms) => expect(parseDuration(input)).toBe(ms));

  // Over 2³¹ − 1 ms a timer fires at once: such durations are refused.
  it.each([-1, 'soon', '5 s', '1x', '', '1s2', Number.NaN, null, '597h', '99999999999h', 2 ** 31])(
    '%j is not a duration',
    (input) => expect(parseDuration(input)).toBeUndefined(),
  );

  it('shows durations back the short way', () => {
    expect([formatMs(200), formatMs(1_500), formatMs(2_000), formatMs(1_250)]).toEqual([
      '200ms',
      '1.5s',
      '2s',
      '1250ms',
    ]);
  });
});

describe('node globs', () => {
  it('match * and ? and nothing else specially', () => {
    const id = 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local';
    expect(matchesGlob('sidecar~*~orders-*', id)).toBe(true);
    expect(matchesGlob('sidecar~10.0.0.?~*', id)).toBe(true);
    expect(matchesGlob('sidecar~*~reviews-*', id)).toBe(false);
    expect(matchesGlob('sidecar', id)).toBe(false);
    expect(matchesGlob(undefined, id)).toBe(true);
    expect(matchesGlob('a.b|c', 'aXb|c')).toBe(false);
  });
});

describe('seeded jitter', () => {
  it('is reproducible: the same seed gives the same delays, another seed others', () => {
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 5 }, () => jittered(random, 1_000, 300));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const ms of draw(7)) {
      expect(ms).toBeGreaterThanOrEqual(700);
      expect(ms).toBeLessThanOrEqual(1_300);
    }
  });

  it('never goes below zero, and without jitter is the fixed delay', () => {
    const random = seededRandom(1);
    expect(Array.from({ length: 50 }, () => jittered(random, 10, 100)).every((ms) => ms >= 0)).toBe(
      true,
    );
    expect(jittered(random, 500, 0)).toBe(500);
  });
});

const SCHEMAS: FieldSchemas = {
  ms: { type: 'duration', required: true, description: 'delay' },
  count: { type: 'integer', min: 1, max: 10, default: 3, description: 'count' },
  mode: { type: 'enum', values: ['a', 'b'], default: 'a', description: 'mode' },
  on: { type: 'boolean', default: true, description: 'on' },
  types: { type: 'types', description: 'types' },
  code: { type: 'status', description: 'code' },
  text: { type: 'string', minLength: 1, description: 'text' },
};

const PARAMS = { path: 'params', noun: 'parameter' } as const;

describe('parameter validation', () => {
  it('fills in defaults and converts durations, types and status names', () => {
    const result = validateFields(
      SCHEMAS,
      {
        ms: '2s',
        types: ['cds', LISTENER_TYPE],
        code: 'unavailable',
      },
      PARAMS,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        ms: 2_000,
        count: 3,
        mode: 'a',
        on: true,
        types: [CLUSTER_TYPE, LISTENER_TYPE],
        code: 14,
      },
    });
  });

  it('reports every problem with its path', () => {
    const result = validateFields(
      SCHEMAS,
      {
        count: 11,
        mode: 'c',
        on: 'yes',
        types: ['XDS'],
        code: 99,
        text: '',
        extra: 1,
      },
      PARAMS,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.path)).toEqual([
      'params.extra',
      'params.ms',
      'params.count',
      'params.mode',
      'params.on',
      'params.types[0]',
      'params.code',
      'params.text',
    ]);
    expect(result.problems[2]?.message).toBe('expected an integer from 1 to 10, found 11');
    expect(result.problems[3]?.message).toBe('expected one of: a, b; found "c"');
  });

  it('reads numbers and booleans from text when told (command-line flags)', () => {
    const result = validateFields(
      SCHEMAS,
      { ms: '500', count: '4', on: 'false', types: 'CDS+LDS', code: '8' },
      { path: 'params', noun: 'parameter', fromText: true },
    );
    expect(result).toMatchObject({
      ok: true,
      value: { ms: 500, count: 4, on: false, types: [CLUSTER_TYPE, LISTENER_TYPE], code: 8 },
    });
    expect(validateFields(SCHEMAS, { ms: 1, count: '4' }, PARAMS).ok).toBe(false);
  });

  it('refuses a non-object', () => {
    expect(validateFields(SCHEMAS, [1], PARAMS)).toEqual({
      ok: false,
      problems: [{ path: 'params', message: 'expected an object of parameters' }],
    });
  });

  it('publishes a JSON Schema', () => {
    const schema = fieldsJsonSchema(SCHEMAS) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(schema.required).toEqual(['ms']);
    expect(schema.properties.count).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: 'count',
      default: 3,
    });
    expect(schema.properties.mode).toMatchObject({ type: 'string', enum: ['a', 'b'] });
  });
});
