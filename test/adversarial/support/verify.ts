/**
 * The five things every attack file checks afterwards, from outside the mock:
 * 1. the process lives (and answers `/healthz`);
 * 2. its event loop was never blocked for more than `MAX_LOOP_DELAY_MS` (p99 and max over
 *    the whole attack, from the probe in the served process: the mock's own delay, less the
 *    time the machine kept it off the CPU while it was ready to run; the gross figure is
 *    recorded beside it);
 * 3. its heap after a full GC and its `/metrics` text stayed near their baseline;
 * 4. a fresh proxy still gets the last good configuration;
 * 5. nothing written to the journal file was lost: after SIGTERM (exit 0) every line parses
 *    and the sequence numbers run without a gap up to the last entry the mock reported.
 * The figures go to `test-results/adversarial/<name>.json` and are printed, for
 * docs/RELIABILITY.md.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { packageRoot } from '../../../src/util/package-root.js';
import { freshProxyClusters } from './fresh-proxy.js';
import { GOOD_CLUSTER, type Target } from './target.js';

/** The rule of docs/RELIABILITY.md: no input blocks the event loop for longer. */
export const MAX_LOOP_DELAY_MS = 100;
/**
 * Heap growth allowed after a full GC: the journal may hold 32 MiB of what clients sent (its
 * default `journalMaxBytes`), and the page's state and the metrics fill up to their limits.
 */
export const MAX_HEAP_GROWTH_BYTES = 48 * 1024 * 1024;
/** `/metrics` may grow by this much: label values are bounded in length and number. */
export const MAX_METRICS_GROWTH_BYTES = 256 * 1024;

export interface AttackFigures {
  name: string;
  inputs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** The worst interval as the clock saw it, with the time the machine did not run the mock. */
  loopGrossMaxMs: number;
  /** The step whose event-loop delay was the worst. */
  worstStep: string;
  heapBeforeMiB: number;
  heapAfterMiB: number;
  metricsBeforeBytes: number;
  metricsAfterBytes: number;
  journalLines: number;
  exitCode: number | null;
}

const MIB = 1024 * 1024;
const round = (n: number) => Math.round(n * 10) / 10;

export async function verifyTarget(name: string, target: Target): Promise<AttackFigures> {
  const { served, controlUrl } = target;
  const health = await fetch(`${controlUrl}/healthz`);
  expect(health.status, 'the mock answers /healthz after the attack').toBe(200);
  await target.step('verify');
  const worst = [...target.steps].sort((a, b) => b.maxMs - a.maxMs)[0] ?? {
    name: 'none',
    p99Ms: 0,
    maxMs: 0,
  };
  const loop = { p99Ms: Math.max(...target.steps.map((s) => s.p99Ms)), maxMs: worst.maxMs };
  const metricsAfterBytes = (await (await fetch(`${controlUrl}/metrics`)).text()).length;
  const clusters = await freshProxyClusters(target.xdsAddress, `after-${name}`);
  const lastSeq = await lastJournalSeq(controlUrl);
  const { heapUsed } = await served.memory();
  const exitCode = await target.stop();
  const journalLines = await checkJournalFile(target.journalPath, lastSeq);
  const figures: AttackFigures = {
    name,
    inputs: target.inputs,
    loopP99Ms: round(loop.p99Ms),
    loopMaxMs: round(loop.maxMs),
    loopGrossMaxMs: round(Math.max(...target.steps.map((s) => s.grossMaxMs))),
    worstStep: worst.name,
    heapBeforeMiB: round(target.baseline.heapUsed / MIB),
    heapAfterMiB: round(heapUsed / MIB),
    metricsBeforeBytes: target.baseline.metricsBytes,
    metricsAfterBytes,
    journalLines,
    exitCode,
  };
  await record(figures);
  expect(
    loop.maxMs,
    `event-loop delay max (in "${worst.name}"; p99 ${figures.loopP99Ms} ms; ${figures.loopGrossMaxMs} ms with the time the machine did not run it)`,
  ).toBeLessThan(MAX_LOOP_DELAY_MS);
  expect(heapUsed - target.baseline.heapUsed, 'heap growth after GC').toBeLessThan(
    MAX_HEAP_GROWTH_BYTES,
  );
  expect(metricsAfterBytes - target.baseline.metricsBytes, '/metrics growth').toBeLessThan(
    MAX_METRICS_GROWTH_BYTES,
  );
  expect(clusters, 'what a fresh proxy is served').toContain(GOOD_CLUSTER);
  expect(exitCode, 'exit code after SIGTERM').toBe(0);
  return figures;
}

async function lastJournalSeq(controlUrl: string): Promise<number> {
  const entries = (await (await fetch(`${controlUrl}/debug/journal?limit=1`)).json()) as {
    seq: number;
  }[];
  return entries.at(-1)?.seq ?? 0;
}

/** Every line parses, sequence numbers run 1, 2, 3… with no gap, up to at least `lastSeq`. */
async function checkJournalFile(path: string, lastSeq: number): Promise<number> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  let expected = 1;
  for (const [index, line] of lines.entries()) {
    let seq: unknown;
    try {
      seq = (JSON.parse(line) as { seq?: unknown }).seq;
    } catch {
      throw new Error(`journal line ${index + 1} is not JSON: ${line.slice(0, 200)}`);
    }
    if (seq !== expected) {
      throw new Error(`journal line ${index + 1} has seq ${String(seq)}, expected ${expected}`);
    }
    expected += 1;
  }
  expect(
    lines.length,
    'journal lines against the last seq the mock reported',
  ).toBeGreaterThanOrEqual(lastSeq);
  return lines.length;
}

async function record(figures: AttackFigures): Promise<void> {
  const dir = join(packageRoot(), 'test-results', 'adversarial');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${figures.name}.json`), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`adversarial ${figures.name}: ${JSON.stringify(figures)}`);
}
