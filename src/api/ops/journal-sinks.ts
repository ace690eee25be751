/** `GET /debug/journal/sinks`: where the journal is written, and how that goes. */
import type { JournalSinkStatus } from '../../journal/journal.js';
import { answer, defineOperation } from '../operation.js';

export const journalSinks = defineOperation({
  name: 'journalSinks',
  method: 'GET',
  path: '/debug/journal/sinks',
  summary:
    "Where the journal is written (a --journal file): lines written, dropped, and why writing stopped (mock-istiod's own)",
  input: {},
  output: answer<JournalSinkStatus[]>({ type: 'array', items: { type: 'object' } }),
  run: (t) => t.journalSinks(),
});
