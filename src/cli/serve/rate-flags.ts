/**
 * `serve --max-streams-per-second`: istiod's connection rate limit (src/server/stream-rate-limit.ts),
 * also read from istiod's own variable, PILOT_MAX_REQUESTS_PER_SECOND, as istiod reads it.
 */
import type { MockIstiodOptions } from '../../app/options.js';
import { defaultStreamsPerSecond } from '../../server/stream-rate-limit.js';
import { MockIstiodError } from '../../util/errors.js';

export const RATE_FLAGS = {
  'max-streams-per-second': { type: 'string' },
} as const;

export const RATE_USAGE = `  --max-streams-per-second <n>
                           new xDS streams let in a second, as istiod (burst 1; a stream waits
                           up to 1 s, else RESOURCE_EXHAUSTED); 0: no limit
                           [PILOT_MAX_REQUESTS_PER_SECOND, where 0 means the default, as in
                           istiod] (default min(15 + 5 x cores, 100): ${defaultStreamsPerSecond()} here)
`;

/** The `maxStreamsPerSecond` option the flag or istiod's variable asks for, if any. */
export function parseRateFlags(
  values: { 'max-streams-per-second'?: string },
  env: NodeJS.ProcessEnv,
): Pick<MockIstiodOptions, 'maxStreamsPerSecond'> | Record<string, never> {
  const flag = values['max-streams-per-second'];
  if (flag !== undefined) {
    return { maxStreamsPerSecond: rate('--max-streams-per-second', flag) };
  }
  const variable = env.PILOT_MAX_REQUESTS_PER_SECOND;
  if (variable === undefined || variable.trim() === '') return {};
  // istiod takes a positive value and falls back to its default for 0 or less.
  const value = rate('PILOT_MAX_REQUESTS_PER_SECOND', variable, true);
  return value > 0 ? { maxStreamsPerSecond: value } : {};
}

function rate(name: string, text: string, negativeAllowed = false): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value) || (value < 0 && !negativeAllowed)) {
    throw new MockIstiodError(
      'USAGE',
      `${name}: expected a number of streams a second${negativeAllowed ? '' : ', 0 or more (0: no limit)'}, got "${text}"`,
    );
  }
  return value;
}
