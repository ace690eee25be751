/**
 * The mock under attack: `mock-istiod serve` in a process of its own (served-process.ts), as
 * a user runs it, with a directory of resource files it watches, a journal file, and a live
 * page open on `/ui/events` for the whole attack, so that what a client chooses reaches every
 * room that reads it (the page's hub, the watcher, the journal, the metrics) at once.
 *
 * `startTarget()` records a baseline (heap after GC, `/metrics` size) and opens the
 * event-loop delay window; `verifyTarget()` (verify.ts) checks the five things afterwards.
 */
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SseReader } from '../../support/fixtures/sse.js';
import { startServedProcess, type ServedProcess } from '../../support/harness/served-process.js';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { freshProxyClusters } from './fresh-proxy.js';

/** The cluster every file set this project serves names: a fresh proxy must get it. */
export const GOOD_CLUSTER = 'adversarial-good';

export const GOOD_FILE = `resources:
  - '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster
    name: ${GOOD_CLUSTER}
    type: STATIC
    connect_timeout: 1s
    load_assignment:
      cluster_name: ${GOOD_CLUSTER}
      endpoints:
        - lb_endpoints:
            - endpoint:
                address: { socket_address: { address: 127.0.0.1, port_value: 9 } }
`;

export interface Target {
  readonly served: ServedProcess;
  readonly controlUrl: string;
  readonly xdsAddress: string;
  /** The directory the mock serves and watches (`--resources`). */
  readonly resourcesDir: string;
  /** The journal file (`--journal`). */
  readonly journalPath: string;
  /** The page kept open on `/ui/events` through the attack. */
  readonly page: SseReader;
  readonly baseline: { heapUsed: number; metricsBytes: number };
  /** How many hostile inputs the attack sent: each file counts its own. */
  inputs: number;
  /** The event-loop delay of each step (`step()`), worst first when read by verify.ts. */
  readonly steps: { name: string; p99Ms: number; maxMs: number; grossMaxMs: number }[];
  /** Ends a step: records the event-loop delay since the last step and starts a new window. */
  step(name: string): Promise<void>;
  /** Stops the mock: SIGTERM, then the exit code (the journal file is then complete). */
  stop(): Promise<number | null>;
  /** Kills the mock if it still runs and removes its files: for `afterAll`, even after a failure. */
  cleanup(): Promise<void>;
}

export async function startTarget(extraArgs: readonly string[] = []): Promise<Target> {
  const root = await mkdtemp(join(tmpdir(), 'mock-istiod-adversarial-'));
  const resourcesDir = join(root, 'resources');
  const journalPath = join(root, 'journal.jsonl');
  await mkdir(resourcesDir);
  await writeFile(join(resourcesDir, '10-good.yaml'), GOOD_FILE);
  const served = await startServedProcess([
    '--resources',
    resourcesDir,
    '--resources-quiet',
    '50ms',
    '--journal',
    journalPath,
    // istiod's connection rate limit would turn most of the attack's streams away before they
    // reach the rooms under test: off, so that every hostile input gets in.
    '--max-streams-per-second',
    '0',
    ...extraArgs,
  ]);
  raisePriority(served.pid);
  try {
    const clusters = await freshProxyClusters(served.xdsAddress, 'baseline');
    if (!clusters.includes(GOOD_CLUSTER)) {
      throw new Error(`the mock did not serve ${GOOD_CLUSTER} at start: ${clusters.join(', ')}`);
    }
    const page = await SseReader.open(`${served.controlUrl}/ui/events`);
    await page.next('snapshot');
    const metricsBytes = (await (await fetch(`${served.controlUrl}/metrics`)).text()).length;
    const { heapUsed } = await served.memory();
    await served.resetLoopDelay();
    const steps: Target['steps'] = [];
    let stopped = false;
    return {
      served,
      controlUrl: served.controlUrl,
      xdsAddress: served.xdsAddress,
      resourcesDir,
      journalPath,
      page,
      baseline: { heapUsed, metricsBytes },
      inputs: 0,
      steps,
      async step(name) {
        if (stopped) return;
        const loop = await served.loopDelay();
        steps.push({ name, p99Ms: loop.p99Ms, maxMs: loop.maxMs, grossMaxMs: loop.grossMaxMs });
        await served.resetLoopDelay();
      },
      async stop() {
        stopped = true;
        page.close();
        return served.stop();
      },
      async cleanup() {
        page.close();
        served.kill();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    served.kill();
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The event-loop delay a process sees includes the time the machine did not schedule it. On
 * a shared 2-core machine running the other test lane (Envoys, builds), that alone reaches
 * hundreds of milliseconds, and the figure would measure the neighbours. The probe takes the
 * main thread's own wait for the CPU out (memory-probe.ts); and the mock under attack runs at
 * a higher priority when this process may give it one (as root, as in CI), every thread it
 * has (the garbage collector's helpers, the thread pool: the main thread can wait on them), and
 * those it starts later, which take the priority of the thread that starts them.
 */
function raisePriority(pid: number): void {
  let threads: number[];
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    threads = [pid];
  }
  for (const thread of threads) {
    try {
      setPriority(thread, -10);
    } catch {
      // Not allowed (not root), or the thread is gone: the figures include the scheduler's.
    }
  }
}

/**
 * For an attack file: the target started before its tests, each test recorded as a step of
 * its own (its event-loop delay), and the mock killed and its files removed at the end.
 */
export function useTarget(extraArgs: readonly string[] = []): () => Target {
  let target: Target | undefined;
  beforeAll(async () => {
    target = await startTarget(extraArgs);
  }, 90_000);
  afterEach(async () => {
    await target?.step(expect.getState().currentTestName ?? 'a test');
  });
  afterAll(async () => {
    await target?.cleanup();
  });
  return () => {
    if (!target) throw new Error('the target did not start');
    return target;
  };
}
