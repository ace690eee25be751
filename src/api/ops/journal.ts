/** `GET /debug/journal`: requests and responses, oldest first, filtered. */
import type { JournalEntry, JournalFilter } from '../../journal/journal.js';
import { JOURNAL_KINDS } from '../../journal/kinds.js';
import type { FieldSchemas, FieldValues } from '../../core/fields.js';
import { answer, defineOperation } from '../operation.js';

const JOURNAL_INPUT = {
  node: { type: 'string', description: 'node id, or a part of it' },
  proxyID: { type: 'string', description: 'the same as node, as istiod names it' },
  type: { type: 'type', description: 'one resource type: cds, LDS, or a type URL' },
  kind: { type: 'enums', values: JOURNAL_KINDS, description: 'only these kinds: ack,nack' },
  since: { type: 'integer', min: 0, description: 'entries after this sequence number' },
  limit: { type: 'integer', min: 1, description: 'the newest N' },
} as const satisfies FieldSchemas;

export const journal = defineOperation({
  name: 'journal',
  method: 'GET',
  path: '/debug/journal',
  summary: 'Requests and responses, oldest first (?node=&type=&kind=ack,nack&since=&limit=)',
  invalid: 'invalid journal query',
  input: JOURNAL_INPUT,
  output: answer<JournalEntry[]>({ type: 'array', items: { type: 'object' } }),
  run: (t, input) => t.journal(journalFilter(input)),
});

/** The journal's filter from the operation's input (also what `journal --file` filters by). */
export function journalFilter(input: FieldValues<typeof JOURNAL_INPUT>): JournalFilter {
  const { node, proxyID, type, kind, since, limit } = input;
  const who = node ?? proxyID;
  return {
    ...(who ? { node: who } : {}),
    ...(type !== undefined ? { typeUrl: type } : {}),
    ...(kind !== undefined && kind.length > 0 ? { kind } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}
