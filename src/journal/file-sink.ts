/**
 * A journal sink writing one JSON object per line (JSONL) to a file: `--journal file.jsonl`.
 * The file is opened (and truncated) before the server starts, so a bad path fails at once
 * with a clear message; `close()` flushes everything written so far. Writing never blocks
 * the server: lines are buffered, and past `maxBufferedBytes` (a disk far slower than the
 * xDS traffic) further lines are dropped and counted rather than growing memory.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import { MockIstiodError } from '../util/errors.js';
import type { JournalEntry, JournalSink, JournalSinkStatus } from './journal.js';

export interface JournalFileOptions {
  /** Called once if writing fails later (the sink then stops writing). */
  onError?: (err: Error) => void;
  /** Lines are dropped while more than this many bytes wait for the disk (default 64 MiB). */
  maxBufferedBytes?: number;
}

export interface JournalFile {
  readonly path: string;
  /** Hand this to `journal.addSink()`. */
  readonly sink: JournalSink;
  /** Lines written (handed to the file stream). */
  readonly written: number;
  /** Lines dropped because the disk could not keep up, or after a write error. */
  readonly dropped: number;
  /** For `journal.addSink(sink, status)`: what it wrote, dropped, and why it stopped. */
  status(): JournalSinkStatus;
  /** Flushes and closes the file; idempotent. */
  close(): Promise<void>;
}

/** A `MockIstiodError` with code `JOURNAL_FILE_FAILED`, naming the system's reason. */
function journalFileError(path: string, cause: unknown): MockIstiodError<'JOURNAL_FILE_FAILED'> {
  const code = (cause as NodeJS.ErrnoException).code;
  const reason = code ?? (cause instanceof Error ? cause.message : String(cause));
  return new MockIstiodError(
    'JOURNAL_FILE_FAILED',
    `cannot write the journal to ${path} (${reason})`,
    {
      details: { path },
      cause,
    },
  );
}

export async function openJournalFile(
  path: string,
  options: JournalFileOptions = {},
): Promise<JournalFile> {
  let handle;
  try {
    handle = await open(path, 'w');
  } catch (err) {
    throw journalFileError(path, err);
  }
  const stream: WriteStream = createWriteStream(path, { fd: handle, flush: true });
  const maxBuffered = options.maxBufferedBytes ?? 64 * 1024 * 1024;
  let failed: MockIstiodError | undefined;
  let written = 0;
  let dropped = 0;
  stream.on('error', (err) => {
    if (failed) return;
    failed = journalFileError(path, err);
    options.onError?.(failed);
  });
  let closing: Promise<void> | undefined;
  return {
    path,
    sink(entry: JournalEntry) {
      if (failed || closing || stream.writableLength > maxBuffered) {
        dropped += 1;
        return;
      }
      stream.write(`${JSON.stringify(entry)}\n`);
      written += 1;
    },
    get written() {
      return written;
    },
    get dropped() {
      return dropped;
    },
    status: () => ({
      name: `file:${path}`,
      written,
      dropped,
      ...(failed ? { error: failed.message } : {}),
    }),
    close() {
      closing ??= (async () => {
        if (!stream.closed) {
          stream.end();
          await once(stream, 'close').catch(() => undefined);
        }
      })();
      return closing;
    },
  };
}
