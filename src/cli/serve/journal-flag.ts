/**
 * `serve --journal <file>` and `--journal-size <n>`: the journal's JSONL file, opened before
 * the server starts (a bad path is a usage error, one line, exit 2) and flushed when the
 * server has closed, so the file ends with the streams' close entries.
 */
import type { Logger } from 'pino';
import { openJournalFile, type JournalFile } from '../../journal/file-sink.js';
import { DEFAULT_JOURNAL_SIZE } from '../../journal/journal.js';
import type { MockIstiod } from '../../app/mock-istiod-api.js';
import { isMockIstiodError, MockIstiodError } from '../../util/errors.js';

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

/** Opens `path` (if given) and feeds it from the server's journal. */
export async function attachJournalFile(
  path: string | undefined,
  server: MockIstiod,
  log: Logger,
): Promise<JournalFile | undefined> {
  if (path === undefined || path === '') return undefined;
  let file: JournalFile;
  try {
    file = await openJournalFile(path, {
      onError: (err) =>
        log.error(
          { err: err.message, path },
          'journal file: writing stopped, xDS keeps serving (GET /debug/journal/sinks)',
        ),
    });
  } catch (err) {
    if (isMockIstiodError(err, 'JOURNAL_FILE_FAILED')) {
      throw new MockIstiodError('USAGE', `--journal: ${err.message}`);
    }
    throw err;
  }
  server.journal.addSink(file.sink, () => file.status());
  log.info({ path }, 'journal: writing every request and response');
  return file;
}

/** Flushes the file and says if lines were lost. */
export async function closeJournalFile(file: JournalFile | undefined, log: Logger): Promise<void> {
  if (!file) return;
  await file.close();
  if (file.dropped > 0) {
    log.warn({ path: file.path, dropped: file.dropped }, 'journal: some lines were not written');
  }
}
