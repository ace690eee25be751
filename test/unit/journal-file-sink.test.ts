import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournalFile } from '../../src/journal/file-sink.js';
import { Journal } from '../../src/journal/journal.js';
import { MockIstiodError } from '../../src/util/errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'journal-sink-'));
  dirs.push(dir);
  return dir;
}

describe('openJournalFile', () => {
  it('writes one JSON object per line and has every line on disk after close', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const file = await openJournalFile(path);
    const journal = new Journal(2);
    journal.addSink(file.sink);
    for (const version of ['v1', 'v2', 'v3']) {
      journal.record({ kind: 'response', direction: 'response', version, nodeId: 'n' });
    }
    await file.close();
    await file.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    // The file keeps what the bounded in-memory ring has already dropped.
    expect(lines.map((l) => (JSON.parse(l) as { version: string }).version)).toEqual([
      'v1',
      'v2',
      'v3',
    ]);
    expect(journal.query()).toHaveLength(2);
    expect(file.written).toBe(3);
    journal.record({ kind: 'close', direction: 'stream' });
    expect(file.dropped).toBe(1);
  });

  it('truncates an existing file', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const first = await openJournalFile(path);
    first.sink({ seq: 1, time: 't', kind: 'open', direction: 'stream' });
    await first.close();
    const second = await openJournalFile(path);
    await second.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('fails at once with the path and the reason when the file cannot be opened', async () => {
    const path = join(tempDir(), 'missing-dir', 'journal.jsonl');
    const err = await openJournalFile(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockIstiodError);
    expect(err).toMatchObject({ code: 'JOURNAL_FILE_FAILED', details: { path } });
    expect((err as Error).message).toBe(`cannot write the journal to ${path} (ENOENT)`);
  });

  it('drops lines instead of buffering without bound when the disk falls behind', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const file = await openJournalFile(path, { maxBufferedBytes: 0 });
    const entry = { seq: 1, time: 't', kind: 'open' as const, direction: 'stream' as const };
    file.sink(entry);
    file.sink(entry);
    await file.close();
    expect(file.written + file.dropped).toBe(2);
    expect(file.dropped).toBeGreaterThan(0);
  });
});
