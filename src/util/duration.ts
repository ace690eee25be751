/**
 * Durations in fault parameters, triggers and timelines: a number of milliseconds, or a
 * string with units the way Go and Envoy write them (`500ms`, `1.5s`, `2m`, `1m30s`).
 */
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
/**
 * The longest duration: what a timer can wait (2³¹ − 1 ms, 24.8 days). Node fires a longer
 * timer after 1 ms, so a longer duration would act at once rather than never.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * Milliseconds, or undefined when `value` is not a duration (negative numbers are not, nor
 * anything over MAX_DURATION_MS).
 */
export function parseDuration(value: unknown): number | undefined {
  const ms = parseMs(value);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

function parseMs(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  }
  if (typeof value !== 'string' || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const match = PART.exec(value);
    if (!match) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  return Math.round(total);
}

/** `1500` → `1.5s`, `200` → `200ms`: how durations are shown back to users. */
export function formatMs(ms: number): string {
  return ms < 1_000 || ms % 100 !== 0 ? `${ms}ms` : `${ms / 1_000}s`;
}

export const DURATION_HINT =
  'a duration such as 500ms, 2s or 1m30s (or a number of milliseconds), at most 596h';
