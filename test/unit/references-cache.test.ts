/**
 * The reference check's cache follows the size of the sets checked, not the number of
 * pushes: a set whose resources all change on every push does not pile up old versions.
 */
import { expect, it } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { cachedReferenceCount } from '../../src/snapshot/references.js';
import { validateSet } from '../../src/snapshot/validated-set.js';

const clusters = (generation: number, count: number) =>
  Array.from({ length: count }, (_, i) =>
    makeStaticCluster({
      name: `c${i}`,
      endpoints: [{ address: '10.0.0.1', port: 1000 + generation }],
    }),
  );

it('keeps at most a few checks worth of references, however many pushes', () => {
  for (let generation = 0; generation < 200; generation++) {
    expect(validateSet({ name: 'default', resources: clusters(generation, 50) }).ok).toBe(true);
  }
  // 200 pushes × 50 changed clusters = 10,000 versions seen; two generations of at most
  // max(1,000, 4 × 50) entries are kept.
  expect(cachedReferenceCount()).toBeLessThanOrEqual(2_000);

  for (let generation = 0; generation < 5; generation++) {
    validateSet({ name: 'default', resources: clusters(generation, 3_000) });
  }
  expect(cachedReferenceCount()).toBeLessThanOrEqual(2 * 4 * 3_000);
});
