/**
 * `serve --journal <file>` and `--journal-size <n>`: the flags' usage and the size's parsing.
 * The file is opened before the server starts (a bad path is a usage error, one line, exit 2)
 * and flushed when the server has closed, so that it ends with the streams' close entries
 * (src/app/serve.ts).
 */
import { DEFAULT_JOURNAL_SIZE } from '../../journal/journal.js';
import { MockIstiodError } from '../../util/errors.js';

export const JOURNAL_USAGE = `  --journal <file>         write every request and response to <file> as JSON lines
  --journal-size <n>       entries kept in memory for GET /debug/journal (default ${DEFAULT_JOURNAL_SIZE})
`;

export function parseJournalSize(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_JOURNAL_SIZE;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new MockIstiodError(
      'USAGE',
      `--journal-size: expected a positive integer, got "${value}"`,
    );
  }
  return Number(value);
}
