import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/app/options.js';
import { LIMIT_USAGE, parseLimitFlags } from '../../src/cli/serve/limit-flags.js';
import { DEFAULT_MAX_SUBSCRIPTIONS } from '../../src/protocol/session.js';
import { isMockIstiodError } from '../../src/util/errors.js';

describe('the subscription limit', () => {
  it('defaults to the 100,000 docs/RELIABILITY.md names, and says so in serve --help', () => {
    expect(DEFAULT_MAX_SUBSCRIPTIONS).toBe(100_000);
    const resolved = resolveOptions({});
    expect(resolved.ok && resolved.value.maxSubscriptions).toBe(100_000);
    expect(LIMIT_USAGE).toContain('--max-subscriptions <n>');
    expect(LIMIT_USAGE).toContain('(default 100000)');
  });

  it('takes --max-subscriptions as a positive integer, and refuses anything else in one line', () => {
    expect(parseLimitFlags({})).toEqual({});
    expect(parseLimitFlags({ 'max-subscriptions': '250000' })).toEqual({
      maxSubscriptions: 250_000,
    });
    for (const bad of ['0', '-1', '1.5', 'lots', '']) {
      let thrown: unknown;
      try {
        parseLimitFlags({ 'max-subscriptions': bad });
      } catch (err) {
        thrown = err;
      }
      expect(isMockIstiodError(thrown, 'USAGE')).toBe(true);
      expect((thrown as Error).message).toBe(
        `--max-subscriptions: expected a positive integer, got "${bad}"`,
      );
    }
  });

  it('refuses a library option that is not a positive integer, with its path', () => {
    const resolved = resolveOptions({ maxSubscriptions: 0 });
    expect(resolved.ok ? [] : resolved.problems).toEqual([
      { path: 'maxSubscriptions', message: 'expected a positive integer, found 0' },
    ]);
  });
});
