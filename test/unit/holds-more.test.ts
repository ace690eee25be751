/**
 * Which resources from the API are validated on the loading thread: those holding more JSON
 * values than `INLINE_VALUES_MAX` (app/resource-sources.ts, `holdsMore`), counted without
 * walking past the limit.
 */
import { describe, expect, it } from 'vitest';
import { holdsMore, INLINE_VALUES_MAX } from '../../src/app/resource-sources.js';

describe('holdsMore', () => {
  it('counts every value: arrays, objects, their members and scalars', () => {
    // The array, the object, its two members (1 and the nested array), and that array's two
    // items: 6.
    const value = [{ a: 1, b: [true, null] }];
    expect(holdsMore(value, 6)).toBe(false);
    expect(holdsMore(value, 5)).toBe(true);
    expect(holdsMore('one', 0)).toBe(true);
    expect(holdsMore('one', 1)).toBe(false);
  });

  it('stops counting at the limit, whatever the size', () => {
    const huge = Array.from({ length: 1_000_000 }, (_, i) => ({ name: `c${i}` }));
    const started = performance.now();
    expect(holdsMore(huge, INLINE_VALUES_MAX)).toBe(true);
    // The walk pushes the outer array's million items once, then stops after 5,000 values.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a few clusters stay under the limit', () => {
    const cluster = { '@type': 't', name: 'c', type: 'STATIC', connect_timeout: '1s' };
    expect(
      holdsMore(
        Array.from({ length: 100 }, () => ({ ...cluster })),
        INLINE_VALUES_MAX,
      ),
    ).toBe(false);
  });
});
