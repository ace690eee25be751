/**
 * `serve --max-subscriptions <n>`: the bound on what one xDS client may subscribe
 * (docs/RELIABILITY.md, "Limits"). The other limits on client-chosen values are fixed.
 */
import { DEFAULT_MAX_SUBSCRIPTIONS } from '../../protocol/session.js';
import { MockIstiodError } from '../../util/errors.js';

export const LIMIT_FLAGS = {
  'max-subscriptions': { type: 'string' },
} as const;

export const LIMIT_USAGE = `  --max-subscriptions <n>  resource names (and types) one stream may watch; past it the
                           stream ends with RESOURCE_EXHAUSTED (default ${DEFAULT_MAX_SUBSCRIPTIONS})
`;

/** The limits as options; an unset flag leaves the option's default. */
export function parseLimitFlags(values: { 'max-subscriptions'?: string | undefined }): {
  maxSubscriptions?: number;
} {
  const raw = values['max-subscriptions'];
  if (raw === undefined) return {};
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new MockIstiodError(
      'USAGE',
      `--max-subscriptions: expected a positive integer, got "${raw}"`,
    );
  }
  return { maxSubscriptions: Number(raw) };
}
