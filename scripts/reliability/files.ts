/**
 * Resource files changing under the watcher at full size (docs/RELIABILITY.md), and the
 * limit of a watcher: a writer that pauses longer than the quiet period (200 ms) in the
 * middle of a file, measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockIstiod } from '../../src/testing/start.js';
import { FileChurn, slowWriter } from '../../test/support/harness/file-churn.js';
import { seededRandom } from '../../test/support/fixtures/raw-ads.js';

async function churnMode(mode: 'file' | 'dir', steps: number, seed: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reliability-files-'));
  const churn = new FileChurn({
    mode,
    dir,
    steps,
    proxies: 20,
    clusters: 20,
    random: seededRandom(seed),
  });
  churn.prepare();
  const server = await startMockIstiod({ resourcesPath: churn.path });
  try {
    const report = await churn.run(server);
    console.log(
      `files (${mode}): ${steps} changes, seed ${seed}, ${report.seconds.toFixed(1)} s, ` +
        `${JSON.stringify(report.steps)}: ${report.completeSets} complete sets written, ` +
        `${report.responses} responses to 20 proxies, ${report.halfServed.length} not a complete set ` +
        `(and ${report.excused.length} while this process paused past the watcher's quiet period), ` +
        `${report.refused} reloads refused and reported`,
    );
    for (const line of report.halfServed.slice(0, 10)) console.log(`  ${line}`);
    return report.halfServed.length === 0;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function slowWriterRun(rounds: number, gapMs: number, quietMs: number, seed: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reliability-slow-'));
  try {
    const report = await slowWriter({ dir, rounds, gapMs, quietMs, random: seededRandom(seed) });
    console.log(
      `files (a writer pausing ${gapMs} ms mid-file, quiet period ${quietMs} ms): ${rounds} files ` +
        `in 4 pieces, seed ${seed}: ${report.served} half-written files served, ` +
        `${report.refused} refused (they did not parse or validate)`,
    );
    return report.served;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function filesRun(steps: number, seed: number): Promise<boolean> {
  const file = await churnMode('file', steps, seed);
  const dir = await churnMode('dir', steps, seed);
  await slowWriterRun(20, 400, 200, seed); // the known limit, measured
  const raised = await slowWriterRun(20, 400, 1000, seed); // its remedy
  return file && dir && raised === 0;
}
