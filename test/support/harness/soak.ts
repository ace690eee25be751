/**
 * A soak: the full server (served-process.ts: CLI, control API, journal file, metrics) under
 * churn, pushes, faults and a slow consumer at once for a while, with its memory sampled
 * after a GC every window. Reports the memory slope after warm-up, push latency per window,
 * and every error a client saw, injected or not. scripts/reliability.ts runs it for ten
 * minutes (docs/RELIABILITY.md); test/integration/soak.test.ts for thirty seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { makeStaticCluster } from '../../../src/resources/cluster.js';
import { AdsTestClient, type ClientResponse } from '../../../src/testing/ads-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { figures, journalLines, slopes, type WindowFigures } from './soak-figures.js';
import { startServedProcess, type MemorySample, type ServedProcess } from './served-process.js';
import {
  churnLoop,
  count,
  faultStream,
  newTally,
  pace,
  slowStream,
  steadyStream,
  unexpected,
  type SoakTally,
} from './soak-streams.js';

export interface SoakOptions {
  durationMs: number;
  /** Memory is sampled and push latency summed up once per window (a minute at full size). */
  windowMs: number;
  /** Windows before this are warm-up: left out of the memory slope. */
  warmupMs: number;
  steadyStreams: number;
  faultStreams: number;
  churnPerSecond: number;
  pushEveryMs: number;
  faultEveryMs: number;
  scrapeEveryMs: number;
  /** Serve xDS over TLS (`--tls`, xDS authentication off: the clients carry no token). */
  tls: boolean;
  /** Progress lines (one per window); silent when absent. */
  log?: (line: string) => void;
}

export const SOAK_DEFAULTS: SoakOptions = {
  durationMs: 10 * 60_000,
  windowMs: 60_000,
  warmupMs: 60_000,
  steadyStreams: 20,
  faultStreams: 4,
  churnPerSecond: 40,
  pushEveryMs: 1_000,
  faultEveryMs: 5_000,
  scrapeEveryMs: 5_000,
  tls: false,
};

export interface SoakReport {
  seconds: number;
  samples: MemorySample[];
  /** Least-squares slope over the samples after warm-up, KiB per minute. */
  heapSlopeKiBPerMin: number;
  rssSlopeKiBPerMin: number;
  windows: WindowFigures[];
  pushes: number;
  churnCycles: number;
  slowCatchUps: number;
  scrapes: number;
  faultsApplied: Record<string, number>;
  injected: Record<string, number>;
  unexpectedCount: number;
  unexpected: string[];
  serverErrorLines: string[];
  clientsAfter: number;
  exitCode: number | null;
  journalLines: number;
  journalBadLines: number;
}

/** About 40 KB of clusters whose endpoints change with `generation`. */
function resources(generation: number) {
  return Array.from({ length: 50 }, (_, i) =>
    makeStaticCluster({
      name: `soak-${i}`,
      endpoints: Array.from({ length: 20 }, (_, j) => ({
        address: `10.${generation % 250}.${i}.${j}`,
        port: 1024 + (generation % 60_000),
      })),
    }),
  );
}

/** The faults applied in turn to the fault streams' nodes, one each `faultEveryMs`. */
const FAULTS = [
  { scenario: 'withhold' },
  { scenario: 'nack', params: { config: 'invalid-field-value' } },
  { scenario: 'delay', params: { ms: 300, jitter: 200, seed: 20261201 } },
  { scenario: 'reset', params: { preset: 'not-ready', times: 2 } },
];
const FAULT_NODES = 'sidecar~*~soak-fault-*';

export async function soak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const options = { ...SOAK_DEFAULTS, ...partial };
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-soak-'));
  const journal = join(dir, 'journal.jsonl');
  const tlsDir = join(dir, 'tls');
  const tls = options.tls ? ['--tls-dir', tlsDir, '--xds-auth', 'off'] : [];
  // The churn opens streams faster than istiod's connection rate limit lets in: off.
  const server = await startServedProcess([
    '--journal',
    journal,
    '--max-streams-per-second',
    '0',
    ...tls,
  ]);
  // By name, not by IP address (TLS's server name must be a name); the certificate has both.
  const channel = options.tls ? { 'grpc.ssl_target_name_override': 'localhost' } : {};
  const credentials = options.tls
    ? grpc.credentials.createSsl(readFileSync(join(tlsDir, 'root-cert.pem')))
    : grpc.credentials.createInsecure();
  try {
    return await run(
      server,
      () => new AdsTestClient(server.xdsAddress, credentials, channel),
      journal,
      options,
    );
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(
  server: ServedProcess,
  connect: () => AdsTestClient,
  journal: string,
  options: SoakOptions,
): Promise<SoakReport> {
  const tally = newTally();
  const http = controlClient(server.controlUrl, tally);
  await http('PUT', '/control/resources', { resources: resources(0) });
  const started = Date.now();
  const latencies: number[][] = [];
  const samples: MemorySample[] = [await server.memory()];
  const push = pushTimer();
  const steady = connect();
  const faulted = connect();
  const slow = connect();
  const faultsApplied = new Map<string, number>();
  let pushes = 0;
  let scrapes = 0;
  const loops = [
    ...Array.from({ length: options.steadyStreams }, (_, i) =>
      steadyStream(steady, `soak-steady-${i}`, tally, push.onResponse),
    ),
    ...Array.from({ length: options.faultStreams }, (_, i) =>
      faultStream(faulted, `soak-fault-${i}`, tally),
    ),
    slowStream(slow, 'soak-slow-0', tally, Math.max(2_000, options.faultEveryMs)),
    churnLoop(connect, tally, options.churnPerSecond),
    every(options.pushEveryMs, tally, async () => {
      if (!push.ready(options.steadyStreams)) return;
      pushes += 1;
      const window = Math.floor((Date.now() - started) / options.windowMs);
      const times = await push.round(
        options.steadyStreams,
        () => http('PUT', '/control/resources', { resources: resources(pushes) }),
        tally,
      );
      if (times.missing > 0 && !tally.stopping)
        unexpected(tally, `push ${pushes}: ${times.missing} streams missed it`);
      (latencies[window] ??= []).push(...times.ms);
    }),
    every(options.faultEveryMs, tally, async (tick) => {
      await http('DELETE', '/control/faults');
      await http('POST', '/control/release');
      const fault = FAULTS[tick % FAULTS.length] as (typeof FAULTS)[number];
      await http('POST', '/control/faults', { ...fault, scope: { node: FAULT_NODES } });
      count(faultsApplied, fault.scenario);
    }),
    every(options.scrapeEveryMs, tally, async () => {
      const text = await http('GET', '/metrics');
      if (typeof text === 'string' && text.includes('pilot_xds')) scrapes += 1;
      else unexpected(tally, 'GET /metrics: no pilot_xds metric');
    }),
    every(options.windowMs, tally, async (tick) => {
      if (tick === 0) return;
      samples.push(await server.memory());
      options.log?.(progress(samples.at(-1) as MemorySample, latencies[tick - 1] ?? [], tally));
    }),
  ];
  await pace(options.durationMs, tally);
  tally.stop();
  await Promise.all(loops);
  for (const client of [steady, faulted, slow]) client.close();
  await http('DELETE', '/control/faults');
  const clientsAfter = await waitFor(
    async () => {
      const debug = (await http('GET', '/debug/connections')) as { totalClients: number };
      return debug.totalClients === 0 ? 0 : undefined;
    },
    { timeoutMs: 30_000, description: 'every session to be gone' },
  ).catch(() => -1);
  samples.push(await server.memory());
  const seconds = (Date.now() - started) / 1000;
  const exitCode = await server.stop();
  return {
    seconds,
    samples,
    ...slopes(samples, options.warmupMs),
    windows: Array.from(latencies, (ms, window) => figures(window, ms ?? [])),
    pushes,
    churnCycles: tally.churnCycles,
    slowCatchUps: tally.slowCatchUps,
    scrapes,
    faultsApplied: Object.fromEntries(faultsApplied),
    injected: Object.fromEntries(tally.injected),
    unexpectedCount: tally.unexpectedCount,
    unexpected: tally.unexpected,
    serverErrorLines: server.errorLines,
    clientsAfter,
    exitCode,
    ...journalLines(journal),
  };
}

/**
 * Times pushes: a round starts before the control API call that changes the resources and
 * ends when every steady stream has seen a new version (or after 10 s: those are missing).
 */
function pushTimer() {
  const lastVersion = new Map<string, string>();
  let round: { startedAt: number; ms: number[]; seen: Set<string> } | undefined;
  return {
    /** Whether every steady stream has had its first response (pushes start then). */
    ready: (streams: number) => lastVersion.size >= streams,
    onResponse: (pod: string, response: ClientResponse) => {
      const changed = lastVersion.has(pod) && lastVersion.get(pod) !== response.version_info;
      lastVersion.set(pod, response.version_info);
      if (changed && round && !round.seen.has(pod)) {
        round.seen.add(pod);
        round.ms.push(Date.now() - round.startedAt);
      }
    },
    async round(streams: number, change: () => Promise<unknown>, tally: SoakTally) {
      const current = (round = { startedAt: Date.now(), ms: [], seen: new Set() });
      await change();
      await waitFor(() => current.seen.size >= streams || tally.stopping, {
        timeoutMs: 10_000,
      }).catch(() => false);
      round = undefined;
      return { ms: current.ms, missing: streams - current.seen.size };
    },
  };
}

/** Calls the control API; a failure or an unexpected status is an unexpected error. */
function controlClient(base: string, tally: SoakTally) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    try {
      const response = await fetch(base + path, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      const text = await response.text();
      if (!response.ok) unexpected(tally, `${method} ${path}: ${response.status} ${text}`);
      return (response.headers.get('content-type') ?? '').includes('json')
        ? JSON.parse(text)
        : text;
    } catch (err) {
      unexpected(tally, `${method} ${path}: ${(err as Error).message}`);
      return undefined;
    }
  };
}

/** Runs `task` every `ms` (tick 0, 1, …) until the soak stops; a task's time counts in. */
async function every(
  ms: number,
  tally: SoakTally,
  task: (tick: number) => Promise<void>,
): Promise<void> {
  for (let tick = 0; !tally.stopping; tick++) {
    const started = Date.now();
    await task(tick);
    await pace(ms - (Date.now() - started), tally);
  }
}

function progress(sample: MemorySample, ms: number[], tally: SoakTally): string {
  const f = figures(0, ms);
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
  return (
    `${(sample.atMs / 60_000).toFixed(1)} min: rss ${mib(sample.rss)} MiB, heap ${mib(sample.heapUsed)} MiB, ` +
    `push p99 ${f.p99Ms} ms (${f.pushes}), churn ${tally.churnCycles}, unexpected ${tally.unexpectedCount}`
  );
}
