import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastHistogram, PendingCounts } from '../../src/metrics/fast-metrics.js';

const BUCKETS = [0.01, 0.1, 0.5, 1, 3, 5, 10, 20, 30];
const NAME = 'test_histogram_seconds';
const HELP = 'A histogram, "quoted" and \\ escaped.';

/** The same observations through prom-client's histogram and ours, in two registries. */
function both(observations: readonly [string, number][], labelled: boolean) {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({
    name: NAME,
    help: HELP,
    buckets: BUCKETS,
    registers: [theirs],
    ...(labelled && { labelNames: ['type'] }),
  });
  const fast = new FastHistogram(NAME, HELP, BUCKETS, ours, labelled ? 'type' : undefined);
  for (const [label, value] of observations) {
    if (labelled) reference.observe({ type: label }, value);
    else reference.observe(value);
    fast.observe(value, labelled ? label : '');
  }
  return { theirs, ours, reference, fast };
}

const observations = fc.array(
  fc.tuple(
    fc.constantFrom('cds', 'lds', 'type.googleapis.com/x', 'a "quoted"\nlabel\\'),
    fc.oneof(
      fc.constantFrom(0, 0.01, 0.1, 30, 31, -1),
      fc.double({ min: -1e3, max: 1e9, noNaN: true, noDefaultInfinity: true }),
    ),
  ),
  { maxLength: 40 },
);

describe('FastHistogram', () => {
  it('reads exactly as prom-client’s histogram with the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(observations, fc.boolean(), async (observed, labelled) => {
        const { theirs, ours } = both(observed, labelled);
        expect(await ours.metrics()).toBe(await theirs.metrics());
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
      }),
      { numRuns: 200 },
    );
  });

  it('starts an unlabelled histogram at zero and empties on reset, as prom-client does', async () => {
    const { theirs, ours, reference, fast } = both([['', 2]], false);
    expect(await ours.metrics()).toContain(`${NAME}_count 1`);
    reference.reset();
    fast.reset();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses a value that is not a finite number', () => {
    const fast = new FastHistogram(NAME, HELP, BUCKETS, new Registry());
    expect(() => fast.observe(Number.NaN)).toThrow('Value is not a valid number');
  });
});

describe('PendingCounts', () => {
  it('adds its counts to the counter whenever the registry is read', async () => {
    const registry = new Registry();
    const pending = new PendingCounts(['type', 'kind']);
    const counter = new Counter({
      name: 'test_pushes',
      help: 'Pushes.',
      labelNames: ['type', 'kind'],
      registers: [registry],
      collect() {
        pending.flush(this);
      },
    });
    for (let i = 0; i < 5; i++) pending.add('cds\tack');
    pending.add('lds\tnack', 2);
    expect(await registry.metrics()).toContain('test_pushes{type="cds",kind="ack"} 5');
    pending.add('cds\tack');
    const text = await registry.metrics();
    expect(text).toContain('test_pushes{type="cds",kind="ack"} 6');
    expect(text).toContain('test_pushes{type="lds",kind="nack"} 2');
    expect((await counter.get()).values).toHaveLength(2);
  });
});
