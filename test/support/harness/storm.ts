/**
 * A connection storm: `attempts` new connections (TCP + HTTP/2 + one ADS stream each) at
 * once, from `workers` processes, against the full server in its own process. Counts what
 * was answered, refused, ended with a status or timed out; times a fresh client's first
 * response before, during and after; and checks the server is still up and recovers.
 * scripts/reliability.ts runs 20,000 attempts (docs/RELIABILITY.md);
 * test/integration/storm.test.ts runs 500.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AdsTestClient } from '../../../src/testing/ads-client.js';
import { envoyRoot } from '../../../src/xds/protos.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { waitFor } from '../../../src/util/wait.js';
import { openFileLimit, spawnWithRaisedFdLimit } from '../fixtures/fd-limit.js';
import { sidecarNode } from '../fixtures/nodes.js';
import { startServedProcess, type ServedProcess } from './served-process.js';
import { figures } from './soak-figures.js';
import type { StormWorkerOptions, StormWorkerResult } from './storm-worker.js';

export interface StormOptions {
  attempts: number;
  workers: number;
  /** How long one attempt waits for its first response. */
  timeoutMs: number;
  serveArgs: readonly string[];
}

export interface ProbeFigures {
  probes: number;
  failed: number;
  p50Ms: number;
  maxMs: number;
}

export interface StormReport {
  attempts: number;
  wallMs: number;
  counts: Record<string, number>;
  answered: number;
  answeredP50Ms: number;
  answeredP99Ms: number;
  before: ProbeFigures;
  during: ProbeFigures;
  after: ProbeFigures;
  clientsAfter: number;
  /** CDS responses the server sent to storm streams (`pilot_xds_pushes{type="cds"}` less
   * the probes'), some perhaps after their client had given up. */
  serverAnswered: number;
  serverFdLimit: { soft: string; hard: string } | undefined;
  rssAfter: number;
  heapAfter: number;
  exitCode: number | null;
  /** From SIGTERM to the server's exit. */
  stopMs: number;
  serverErrorLines: string[];
}

const WORKER = fileURLToPath(new URL('./storm-worker.ts', import.meta.url));

export async function storm(partial: Partial<StormOptions> = {}): Promise<StormReport> {
  const options = { attempts: 500, workers: 2, timeoutMs: 30_000, serveArgs: [], ...partial };
  // The storm measures the mock taking every attempt in at once: istiod's connection rate
  // limit (test/integration/rate-limit.test.ts) is off.
  const server = await startServedProcess(['--max-streams-per-second', '0', ...options.serveArgs]);
  const workers: ChildProcess[] = [];
  try {
    return await run(server, workers, options);
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    server.kill();
  }
}

async function run(
  server: ServedProcess,
  workers: ChildProcess[],
  options: StormOptions,
): Promise<StormReport> {
  const before = await probes(server.xdsAddress, 5);
  const cdsBefore = await cdsPushes(server);
  const per = Math.ceil(options.attempts / options.workers);
  const request = encodedStormRequest();
  const lines = [];
  for (let i = 0; i < options.workers; i++) {
    const attempts = Math.min(per, options.attempts - i * per);
    const args: StormWorkerOptions = {
      address: server.xdsAddress,
      attempts,
      timeoutMs: options.timeoutMs,
      request,
    };
    const worker = spawnWithRaisedFdLimit(
      process.execPath,
      ['--import', 'tsx', WORKER, JSON.stringify(args)],
      { cwd: packageRoot(), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    workers.push(worker);
    lines.push(createInterface({ input: worker.stdout! })[Symbol.asyncIterator]());
  }
  for (const line of lines) await line.next(); // every worker is ready
  const started = Date.now();
  for (const w of workers) w.stdin?.write('go\n');
  const results = Promise.all(
    lines.map(async (line) => JSON.parse((await line.next()).value as string) as StormWorkerResult),
  );
  let storming = true;
  const during = probesWhile(server.xdsAddress, () => storming);
  const done = await results;
  const wallMs = Date.now() - started;
  storming = false;
  await Promise.all(workers.filter((w) => w.exitCode === null).map((w) => once(w, 'exit')));
  const clientsAfter = await clientsGone(server);
  const duringProbes = await during;
  const serverAnswered =
    (await cdsPushes(server)) - cdsBefore - (duringProbes.probes - duringProbes.failed);
  const after = await probes(server.xdsAddress, 5);
  const serverFdLimit = openFileLimit(server.pid);
  const memory = await server.memory();
  const counts: Record<string, number> = {};
  for (const r of done)
    for (const [k, n] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + n;
  const answered = figures(
    0,
    done.flatMap((r) => r.answeredMs),
  );
  return {
    attempts: options.attempts,
    wallMs,
    counts,
    answered: answered.pushes,
    answeredP50Ms: answered.p50Ms,
    answeredP99Ms: answered.p99Ms,
    before,
    during: duringProbes,
    after,
    clientsAfter,
    serverAnswered,
    serverFdLimit,
    rssAfter: memory.rss,
    heapAfter: memory.heapUsed,
    ...(await timedStop(server)),
    serverErrorLines: server.errorLines,
  };
}

async function timedStop(server: ServedProcess) {
  const started = Date.now();
  const exitCode = await server.stop();
  return { exitCode, stopMs: Date.now() - started };
}

/** The one request every storm connection sends: CDS for one sidecar node, base64-encoded. */
export function encodedStormRequest(): string {
  const type = envoyRoot().lookupType('envoy.service.discovery.v3.DiscoveryRequest');
  const node = sidecarNode('storm-0');
  const message = type.create({
    type_url: CLUSTER_TYPE,
    node: { id: node.id, cluster: node.cluster },
  });
  return Buffer.from(type.encode(message).finish()).toString('base64');
}

/** A fresh client's time to its first response (new connection, new stream), in ms. */
async function probe(address: string): Promise<number> {
  const started = Date.now();
  const client = new AdsTestClient(address);
  try {
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode('storm-probe') });
    await stream.next(30_000);
    return Date.now() - started;
  } finally {
    client.close();
  }
}

async function probes(address: string, n: number): Promise<ProbeFigures> {
  const ms: number[] = [];
  let failed = 0;
  for (let i = 0; i < n; i++)
    await probe(address).then(
      (t) => ms.push(t),
      () => (failed += 1),
    );
  return summary(ms, failed);
}

/** Probes one after another while `going()`; at least one. */
async function probesWhile(address: string, going: () => boolean): Promise<ProbeFigures> {
  const ms: number[] = [];
  let failed = 0;
  do
    await probe(address).then(
      (t) => ms.push(t),
      () => (failed += 1),
    );
  while (going());
  return summary(ms, failed);
}

function summary(ms: number[], failed: number): ProbeFigures {
  const f = figures(0, ms);
  return { probes: ms.length + failed, failed, p50Ms: f.p50Ms, maxMs: f.maxMs };
}

/** The server's count of CDS responses sent, from its metrics. */
async function cdsPushes(server: ServedProcess): Promise<number> {
  const text = await (await fetch(`${server.controlUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('pilot_xds_pushes{type="cds"}'));
  return Number(line?.split(' ').at(-1) ?? 0);
}

async function clientsGone(server: ServedProcess): Promise<number> {
  const url = `${server.controlUrl}/debug/connections`;
  const count = async () =>
    ((await (await fetch(url)).json()) as { totalClients: number }).totalClients;
  return waitFor(async () => ((await count()) === 0 ? 0 : undefined), {
    timeoutMs: 60_000,
    description: 'every storm session to be gone',
  }).catch(() => count());
}
