/**
 * `GET /debug/journal`: requests and responses, oldest first, filtered. With `wait` it is a
 * long poll, the way to follow the journal from any language: when nothing matches yet (after
 * `since`), it answers as soon as an entry that matches is journaled, or `[]` when `wait` runs
 * out; ask again with `since` = the last `seq` seen.
 */
import type { JournalEntry, JournalFilter } from '../../journal/journal.js';
import { JOURNAL_KINDS } from '../../journal/kinds.js';
import type { FieldSchemas, FieldValues } from '../../core/fields.js';
import { answer, defineOperation } from '../operation.js';

/** The longest one long poll waits. */
export const MAX_JOURNAL_WAIT_MS = 60_000;

const JOURNAL_INPUT = {
  node: {
    type: 'glob',
    description: 'node-id glob (`*orders*`; without `*` or `?`, the exact id)',
  },
  proxyID: { type: 'glob', description: 'the same as node, as istiod names it' },
  type: { type: 'type', description: 'one resource type: cds, LDS, or a type URL' },
  kind: { type: 'enums', values: JOURNAL_KINDS, description: 'only these kinds: ack,nack' },
  since: { type: 'integer', min: 0, description: 'entries after this sequence number' },
  limit: { type: 'integer', min: 1, description: 'the newest N' },
  wait: {
    type: 'duration',
    description: `when nothing matches yet, wait up to this long for an entry (long poll; at most ${MAX_JOURNAL_WAIT_MS / 1000}s)`,
  },
} as const satisfies FieldSchemas;

export const journal = defineOperation({
  name: 'journal',
  method: 'GET',
  path: '/debug/journal',
  summary: 'Requests and responses, oldest first (?node=&type=&kind=ack,nack&since=&limit=)',
  invalid: 'invalid journal query',
  input: JOURNAL_INPUT,
  output: answer<JournalEntry[]>({ type: 'array', items: { type: 'object' } }),
  waits: { field: 'wait', defaultMs: 0 },
  run: (t, input, context) =>
    input.wait === undefined || input.wait === 0
      ? t.queryJournal(journalFilter(input))
      : t.waitForJournal(
          journalFilter(input),
          Math.min(input.wait, MAX_JOURNAL_WAIT_MS),
          context?.signal,
        ),
});

/** The journal's filter from the operation's input (also what `journal --file` filters by). */
export function journalFilter(input: FieldValues<typeof JOURNAL_INPUT>): JournalFilter {
  const { node, proxyID, type, kind, since, limit } = input;
  // `wait` says how long to wait, not which entries.
  const who = node ?? proxyID;
  return {
    ...(who ? { node: who } : {}),
    ...(type !== undefined ? { typeUrl: type } : {}),
    ...(kind !== undefined && kind.length > 0 ? { kind } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}
