/**
 * The flags of `mock-istiod serve` that set how much of what clients choose the mock keeps:
 * NACK texts, metric label values, the journal's bytes and the subscriptions of one stream
 * (docs/RELIABILITY.md, "Limits").
 */
import type { MockIstiodOptions } from '../../app/options.js';
import { DEFAULT_NACK_TEXT_MAX } from '../../core/stream-state.js';
import { DEFAULT_METRIC_SERIES_MAX } from '../../metrics/label-bounds.js';
import { DEFAULT_JOURNAL_MAX_BYTES } from '../../journal/journal.js';
import { DEFAULT_MAX_SUBSCRIPTIONS } from '../../protocol/session.js';
import { MockIstiodError } from '../../util/errors.js';

export const LIMIT_FLAGS = {
  'nack-text-max': { type: 'string' },
  'metric-series-max': { type: 'string' },
  'journal-max-bytes': { type: 'string' },
  'max-subscriptions': { type: 'string' },
} as const;

export const LIMIT_USAGE = `  --nack-text-max <n>      characters of a NACK's error_detail.message kept (journal, log,
                           syncz, page); the rest is cut, with its length (default ${DEFAULT_NACK_TEXT_MAX})
  --metric-series-max <n>  label sets one metric shows; more count as "other"
                           (default ${DEFAULT_METRIC_SERIES_MAX})
  --journal-max-bytes <n>  bytes the in-memory journal may hold; past it the oldest entries
                           go (default ${DEFAULT_JOURNAL_MAX_BYTES})
  --max-subscriptions <n>  resource names (and types) one stream may watch; past it the
                           stream ends with RESOURCE_EXHAUSTED (default ${DEFAULT_MAX_SUBSCRIPTIONS})
`;

function positive(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new MockIstiodError('USAGE', `${flag}: expected a positive integer, got "${value}"`);
  }
  return Number(value);
}

/** The options the flags given set (none for a flag left out: the library default holds). */
export function parseLimitFlags(values: {
  'nack-text-max'?: string | undefined;
  'metric-series-max'?: string | undefined;
  'journal-max-bytes'?: string | undefined;
  'max-subscriptions'?: string | undefined;
}): Partial<MockIstiodOptions> {
  const nack = values['nack-text-max'];
  const series = values['metric-series-max'];
  const journal = values['journal-max-bytes'];
  const subscriptions = values['max-subscriptions'];
  return {
    ...(nack !== undefined && { nackTextMax: positive('--nack-text-max', nack) }),
    ...(series !== undefined && { metricSeriesMax: positive('--metric-series-max', series) }),
    ...(journal !== undefined && { journalMaxBytes: positive('--journal-max-bytes', journal) }),
    ...(subscriptions !== undefined && {
      maxSubscriptions: positive('--max-subscriptions', subscriptions),
    }),
  };
}
