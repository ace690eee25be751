/**
 * Resource files changing under the watcher at full size (docs/RELIABILITY.md), and the
 * limit of a watcher: a writer that pauses longer than the quiet period (200 ms) in the
 * middle of a file, measured.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { clustersYaml, FileChurn } from '../../test/support/file-churn.js';
import { seededRandom } from '../../test/support/raw-ads.js';

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
        `${report.responses} responses to 20 proxies, ${report.halfServed.length} not a complete set, ` +
        `${report.refused} reloads refused and reported`,
    );
    for (const line of report.halfServed.slice(0, 10)) console.log(`  ${line}`);
    return report.halfServed.length === 0;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A writer pausing `gapMs` between pieces: how many of its half-written files were served. */
async function slowWriter(rounds: number, gapMs: number, seed: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reliability-slow-'));
  const file = join(dir, 'resources.yaml');
  const random = seededRandom(seed);
  writeFileSync(file, clustersYaml(['start']));
  const server = await startMockIstiod({ resourcesPath: file });
  let refused = 0;
  server.events.on('resources-error', () => (refused += 1));
  let served = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const names = Array.from({ length: 20 }, (_, i) => `slow-${round}-c${i}`);
      const text = clustersYaml(names);
      const fd = openSync(file, 'w');
      const cuts = [
        0,
        ...[1, 2, 3].map(() => Math.floor(random() * text.length)).sort((a, b) => a - b),
        text.length,
      ];
      for (let i = 1; i < cuts.length; i++) {
        writeSync(fd, text.slice(cuts[i - 1], cuts[i]));
        await new Promise((resolve) => setTimeout(resolve, gapMs));
        const now = server.snapshot().get(CLUSTER_TYPE).resources.size;
        if (
          i < cuts.length - 1 &&
          now > 0 &&
          now < 20 &&
          server.snapshot().get(CLUSTER_TYPE).resources.has(`slow-${round}-c0`)
        )
          served += 1;
      }
      closeSync(fd);
      await waitFor(
        () =>
          server.snapshot().get(CLUSTER_TYPE).resources.size === 20 &&
          server.snapshot().get(CLUSTER_TYPE).resources.has(`slow-${round}-c19`),
        { timeoutMs: 10_000 },
      );
    }
    console.log(
      `files (a writer pausing ${gapMs} ms mid-file, a known limit): ${rounds} files in 4 pieces, ` +
        `seed ${seed}: ${served} half-written files served, ${refused} refused (they did not parse or validate)`,
    );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function filesRun(steps: number, seed: number): Promise<boolean> {
  const file = await churnMode('file', steps, seed);
  const dir = await churnMode('dir', steps, seed);
  await slowWriter(20, 400, seed);
  return file && dir;
}
