/**
 * The mock's own faults, on a real `mock-istiod serve` child process under load (small here;
 * scripts/reliability.ts runs them big, docs/RELIABILITY.md): SIGKILL while the journal is
 * written leaves only whole lines but possibly the last, which `journal --file` skips and
 * reports; a full disk under the journal is reported while xDS keeps serving; SIGTERM ends
 * every stream UNAVAILABLE and exits well within its 10 s bound.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseJournalText } from '../../src/journal/read-file.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { useCli } from '../support/fixtures/cli.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import {
  fileSize,
  keepBusy,
  mountSmallDisk,
  serveChild,
  type Served,
  sigtermUnderLoad,
  waitForJournalFailure,
} from '../support/harness/own-faults.js';

const cli = useCli();
const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-own-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(
  'SIGKILL while the journal is written leaves whole lines; the reader skips a cut-short last one',
  {
    timeout: 60_000,
  },
  async () => {
    const journal = join(dir, 'killed.jsonl');
    const served = await serveChild(cli.start, ['--journal', journal]);
    let stop = false;
    const busy = keepBusy(served, () => stop);
    await waitFor(() => fileSize(journal) > 200_000, {
      timeoutMs: 30_000,
      description: 'the journal file to pass 200 kB',
    });
    served.run.child.kill('SIGKILL');
    await served.run.exited();
    stop = true;
    await busy;

    const text = readFileSync(journal, 'utf8');
    const contents = parseJournalText(text, journal);
    expect(contents.entries.length).toBeGreaterThan(500);
    contents.entries.forEach((entry, i) => expect(entry.seq).toBe(i + 1));

    // Cut the file in the middle of a line, as a kill during a write can.
    const cut = join(dir, 'cut.jsonl');
    copyFileSync(journal, cut);
    const lastNewline = text.lastIndexOf('\n', text.length - 2);
    truncateSync(cut, lastNewline + 10);
    const read = await cli.run(['journal', '--file', cut, '-o', 'json']);
    expect(read.code).toBe(0);
    const lineNumber = text.slice(0, lastNewline + 1).split('\n').length;
    expect(read.stderr).toContain(`${cut}:${lineNumber}: the last line is cut short (9 bytes`);
    expect(read.stdout.trim().split('\n')).toHaveLength(lineNumber - 1);
  },
);

it(
  'a full disk under the journal is reported (log, /debug/journal/sinks, metric) and xDS keeps serving',
  {
    timeout: 60_000,
  },
  async () => {
    const disk = join(dir, 'disk');
    const unmount = mountSmallDisk(disk, '64k');
    let served: Served | undefined;
    try {
      served = await serveChild(cli.start, ['--journal', join(disk, 'journal.jsonl')]);
      let stop = false;
      const busy = keepBusy(served, () => stop);
      const line = await waitForJournalFailure(served.run, 30_000);
      stop = true;
      await busy;
      expect(line.err).toContain('ENOSPC');

      const sinks = (await (await fetch(`${served.control}/debug/journal/sinks`)).json()) as {
        error?: string;
      }[];
      expect(sinks).toHaveLength(1);
      expect(sinks[0]?.error).toContain('ENOSPC');
      const metrics = await (await fetch(`${served.control}/metrics`)).text();
      expect(metrics).toMatch(/mock_istiod_journal_sink_failed\{sink="file:[^"]+"\} 1/);

      const client = new AdsTestClient(served.xds);
      try {
        expect((await requestClusters(client.sotw(), { timeoutMs: 10_000 })).resources.length).toBe(
          2,
        );
      } finally {
        client.close();
      }
      served.run.child.kill('SIGTERM');
      expect(await served.run.exited()).toBe(0);
    } finally {
      // The file must be closed before the disk can go.
      served?.run.child.kill('SIGKILL');
      await served?.run.exited().catch(() => undefined);
      unmount();
    }
  },
);

it(
  'SIGTERM under load ends every stream UNAVAILABLE and exits 0 within the 10 s bound',
  {
    timeout: 60_000,
  },
  async () => {
    const served = await serveChild(cli.start, ['--journal', join(dir, 'term.jsonl')]);
    const report = await sigtermUnderLoad(served, 100);
    expect(report.endings).toEqual({ UNAVAILABLE: 100 });
    expect(report.exitCode).toBe(0);
    expect(report.exitMs).toBeLessThan(10_000);
  },
);
