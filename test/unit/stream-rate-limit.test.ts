/**
 * The bucket behind istiod's connection rate limit (src/server/stream-rate-limit.ts), on a
 * clock the test moves, and the flag and variable that set it (src/cli/serve/rate-flags.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  createStreamRateLimiter,
  defaultStreamsPerSecond,
} from '../../src/server/stream-rate-limit.js';
import { parseRateFlags } from '../../src/cli/serve/rate-flags.js';
import { resolveOptions } from '../../src/app/options.js';

function clocked(perSecond: number) {
  let t = 1_000;
  const limiter = createStreamRateLimiter(perSecond, () => t);
  return { limiter, advance: (ms: number) => (t += ms) };
}

describe('stream rate limiter', () => {
  it("is istiod's default: min(15 + 5 x cores, 100)", () => {
    expect(defaultStreamsPerSecond(1)).toBe(20);
    expect(defaultStreamsPerSecond(2)).toBe(25);
    expect(defaultStreamsPerSecond(4)).toBe(35);
    expect(defaultStreamsPerSecond(32)).toBe(100);
  });

  it('lets the first stream in at once, gives turns within 1 s, and refuses the rest', () => {
    const { limiter } = clocked(2.5);
    const delays = Array.from({ length: 5 }, () => limiter.reserve()?.delayMs);
    expect(delays.map((d) => (d === undefined ? d : Math.round(d)))).toEqual([
      0,
      400,
      800,
      undefined,
      undefined,
    ]);
  });

  it('refills at the rate, up to a burst of one', () => {
    const { limiter, advance } = clocked(10);
    expect(limiter.reserve()?.delayMs).toBe(0);
    advance(10_000);
    expect(limiter.reserve()?.delayMs).toBe(0);
    expect(limiter.reserve()?.delayMs).toBeCloseTo(100);
  });

  it('takes back the turn of a stream that goes away while it waits', () => {
    const { limiter } = clocked(1);
    expect(limiter.reserve()?.delayMs).toBe(0);
    const waiting = limiter.reserve();
    expect(waiting?.delayMs).toBeCloseTo(1_000);
    expect(limiter.reserve()).toBeUndefined();
    waiting?.cancel();
    expect(limiter.reserve()?.delayMs).toBeCloseTo(1_000);
  });
});

describe('--max-streams-per-second and PILOT_MAX_REQUESTS_PER_SECOND', () => {
  it('takes the flag first; 0 turns the limit off', () => {
    const env = { PILOT_MAX_REQUESTS_PER_SECOND: '7' };
    expect(parseRateFlags({ 'max-streams-per-second': '0' }, env)).toEqual({
      maxStreamsPerSecond: 0,
    });
    expect(parseRateFlags({}, env)).toEqual({ maxStreamsPerSecond: 7 });
  });

  it("reads istiod's variable as istiod does: 0 or less is the default", () => {
    expect(parseRateFlags({}, { PILOT_MAX_REQUESTS_PER_SECOND: '0' })).toEqual({});
    expect(parseRateFlags({}, { PILOT_MAX_REQUESTS_PER_SECOND: '-3' })).toEqual({});
    expect(parseRateFlags({}, {})).toEqual({});
  });

  it('names the flag or variable and what it expects', () => {
    expect(() => parseRateFlags({ 'max-streams-per-second': 'lots' }, {})).toThrow(
      '--max-streams-per-second: expected a number of streams a second, 0 or more (0: no limit), got "lots"',
    );
    expect(() => parseRateFlags({ 'max-streams-per-second': '-1' }, {})).toThrow(/0 or more/);
    expect(() => parseRateFlags({}, { PILOT_MAX_REQUESTS_PER_SECOND: 'x' })).toThrow(
      'PILOT_MAX_REQUESTS_PER_SECOND: expected a number of streams a second, got "x"',
    );
  });

  it('checks the library option', () => {
    const resolved = resolveOptions({ maxStreamsPerSecond: -1 });
    expect(resolved.ok ? [] : resolved.problems).toEqual([
      {
        path: 'maxStreamsPerSecond',
        message: 'expected a number of streams a second, 0 or more (0: no limit), found -1',
      },
    ]);
  });
});
