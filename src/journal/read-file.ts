/**
 * Reading a journal file (`serve --journal file.jsonl`) back: one JSON object per line. A
 * process killed while writing (SIGKILL, a crash, a full disk) can leave the last line cut
 * short; that line is skipped and reported, not an error. A complete line (one that ends
 * with a newline) that is not a journal entry is an error naming its line number: the file
 * was damaged some other way.
 */
import { readFileSync } from 'node:fs';
import { MockIstiodError } from '../util/errors.js';
import type { JournalEntry } from './journal.js';

export interface JournalFileContents {
  entries: JournalEntry[];
  /** The cut-short last line, if there is one: its number and length. */
  partial?: { line: number; bytes: number };
}

function isEntry(value: unknown): value is JournalEntry {
  const v = value as Partial<JournalEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.seq === 'number' && typeof v.kind === 'string'
  );
}

/** Parses a journal file's text; see the comment at the top. */
export function parseJournalText(text: string, path: string): JournalFileContents {
  const lines = text.split('\n');
  // After the last newline: empty when the file ends cleanly, else the cut-short line.
  const tail = lines.pop() ?? '';
  const entries: JournalEntry[] = [];
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new MockIstiodError(
        'JOURNAL_FILE_FAILED',
        `${path}:${i + 1}: not a JSON line (${reason})`,
        {
          details: { path },
        },
      );
    }
    if (!isEntry(value)) {
      throw new MockIstiodError(
        'JOURNAL_FILE_FAILED',
        `${path}:${i + 1}: not a journal entry (no seq or kind)`,
        {
          details: { path },
        },
      );
    }
    entries.push(value);
  });
  if (tail === '') return { entries };
  return { entries, partial: { line: lines.length + 1, bytes: Buffer.byteLength(tail) } };
}

/** Reads a journal file; a missing or unreadable file is `JOURNAL_FILE_FAILED`. */
export function readJournalFile(path: string): JournalFileContents {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new MockIstiodError(
      'JOURNAL_FILE_FAILED',
      `cannot read the journal file ${path} (${reason})`,
      {
        details: { path },
        cause: err,
      },
    );
  }
  return parseJournalText(text, path);
}
