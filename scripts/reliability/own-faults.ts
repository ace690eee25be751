/**
 * The mock's own faults at full size (docs/RELIABILITY.md): repeated SIGKILLs of a `serve
 * --journal` child under load, a full tmpfs under its journal, and SIGTERM with many streams.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJournalText } from '../../src/journal/read-file.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { spawnCli, type CliRun } from '../../test/support/fixtures/cli.js';
import { requestClusters } from '../../test/support/fixtures/handshake.js';
import {
  fileSize,
  keepBusy,
  mountSmallDisk,
  serveChild,
  sigtermUnderLoad,
  waitForJournalFailure,
  type Served,
} from '../../test/support/harness/own-faults.js';

const started: CliRun[] = [];
const start = (args: string[]) => {
  const run = spawnCli(args, {});
  started.push(run);
  return run;
};

async function killRounds(dir: string, rounds: number): Promise<boolean> {
  let ok = true;
  let lines = 0;
  let partial = 0;
  for (let round = 0; round < rounds; round++) {
    const journal = join(dir, `killed-${round}.jsonl`);
    const served = await serveChild(start, ['--journal', journal]);
    let stop = false;
    const busy = keepBusy(served, () => stop, 20);
    // Kill at a different size each round: 0.5 MB, 1 MB, 1.5 MB, …
    const size = 500_000 * (round + 1);
    await waitFor(() => fileSize(journal) > size, { timeoutMs: 120_000 });
    served.run.child.kill('SIGKILL');
    await served.run.exited();
    stop = true;
    await busy;
    try {
      const contents = parseJournalText(readFileSync(journal, 'utf8'), journal);
      lines += contents.entries.length;
      if (contents.partial) partial += 1;
      if (contents.entries.some((e, i) => e.seq !== i + 1)) throw new Error('a gap in seq');
    } catch (err) {
      ok = false;
      console.log(`  round ${round}: ${String(err)}`);
    }
  }
  console.log(
    `journal SIGKILL: ${rounds} kills under load, ${lines} complete lines, all parsed: ${ok}, ` +
      `${partial} files ended with a cut-short line`,
  );
  return ok;
}

async function fullDisk(dir: string): Promise<boolean> {
  const disk = join(dir, 'disk');
  const unmount = mountSmallDisk(disk, '64k');
  let served: Served | undefined;
  try {
    served = await serveChild(start, ['--journal', join(disk, 'journal.jsonl')]);
    let stop = false;
    const busy = keepBusy(served, () => stop, 20);
    const line = await waitForJournalFailure(served.run, 60_000);
    // Keep the load on for a while after the failure: xDS must go on serving.
    const after = Date.now() + 5_000;
    stop = false;
    await waitFor(() => Date.now() > after, { timeoutMs: 10_000 });
    stop = true;
    const cycles = await busy;
    const sinks = (await (await fetch(`${served.control}/debug/journal/sinks`)).json()) as {
      dropped: number;
      error?: string;
    }[];
    const file = join(disk, 'journal.jsonl');
    const contents = parseJournalText(readFileSync(file, 'utf8'), file);
    const tail = contents.partial
      ? `ends with a cut-short line of ${contents.partial.bytes} bytes`
      : 'ends with a whole line';
    const client = new AdsTestClient(served.xds);
    const served2 = await Promise.all(
      Array.from({ length: 100 }, () => requestClusters(client.sotw(), { timeoutMs: 10_000 })),
    );
    client.close();
    console.log(
      `journal on a full 64k tmpfs: "${line.msg}" (${String(line.err)}); ${cycles} streams served ` +
        `meanwhile; sink ${JSON.stringify(sinks[0])}; the file holds ${contents.entries.length} ` +
        `whole lines and ${tail}; 100 new streams served after: ${served2.length}`,
    );
    return served2.length === 100 && sinks[0]?.error !== undefined;
  } finally {
    served?.run.child.kill('SIGKILL');
    await served?.run.exited().catch(() => undefined);
    unmount();
  }
}

async function sigterm(dir: string, streams: number): Promise<boolean> {
  const served = await serveChild(start, ['--journal', join(dir, 'term.jsonl')]);
  const report = await sigtermUnderLoad(served, streams);
  console.log(
    `SIGTERM with ${streams} streams and pushes going out: exit ${report.exitCode} after ` +
      `${report.exitMs} ms (bound 10,000 ms), streams ended ${JSON.stringify(report.endings)}`,
  );
  return report.exitCode === 0 && report.endings.UNAVAILABLE === streams && report.exitMs < 10_000;
}

export async function ownFaultsRun(kills: number, streams: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reliability-'));
  try {
    const killed = await killRounds(dir, kills);
    const full = await fullDisk(dir);
    const term = await sigterm(dir, streams);
    return killed && full && term;
  } finally {
    for (const run of started) run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
