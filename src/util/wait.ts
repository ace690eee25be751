/**
 * Waiting for a condition with a deadline: the only way tests (and library users) should
 * wait. On timeout the error (`MockIstiodError`, code `WAIT_TIMEOUT`) says what was expected
 * and the last value seen.
 */
import { MockIstiodError } from './errors.js';

export interface WaitOptions {
  /** Give up after this many milliseconds (default 10 s). */
  timeoutMs?: number;
  /** Poll interval in milliseconds (default 50 ms). */
  intervalMs?: number;
  /** What is being waited for, in words: it goes into the timeout error. */
  description?: string;
  /** More to say on timeout (where things stood: a log tail, a state), asked for only then. */
  explain?: () => string;
}

/**
 * Calls `probe` until it returns a value other than `undefined`/`false` (errors thrown by the
 * probe count as "not yet"), and returns that value.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? 'condition';
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      const more = options.explain ? `\n${options.explain()}` : '';
      throw new MockIstiodError(
        'WAIT_TIMEOUT',
        `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}${more}`,
        { details: { lastValue: last } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
