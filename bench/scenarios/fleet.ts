/**
 * Scenarios a (connect ramp), b (fan-out push), c (memory per idle stream) and e (event-loop
 * delay during pushes), on one fleet per server, protocol and stream count: a fresh server
 * serving the lab set; N simulated sidecars connect at once (ramp); once all are idle, the
 * server's memory is read after a full GC; then, at the fan-out counts, pushes are timed.
 *
 * A ramp's figures are the medians of `profile.rampRounds` ramps per server, each on a fresh
 * server: the fleet's own, then ramps alone, the servers' order reversed every other round.
 * One ramp per server left a ratio at the mercy of the machine's drift between two of them
 * (±0.1 from run to run on a quiet machine).
 */
import {
  connectTimeoutMs,
  settle,
  withLoadgen,
  withServer,
  type BenchContext,
} from '../lib/context.js';
import type { ConnectReply, Loadgen } from '../lib/loadgen-process.js';
import { round } from '../lib/proc.js';
import { runPushes, warmupsFor, type PushSeries } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import type { ServerKind, ServerProcess } from '../lib/server-process.js';
import { median, slope } from '../lib/stats.js';

export interface Memory {
  rss: number;
  heapUsed: number;
}

export interface FleetRun {
  server: ServerKind;
  mode: 'sotw' | 'delta';
  streams: number;
  ramp: {
    firstResponseP50: number;
    firstResponseP99: number;
    /** From the first connect until the last stream ACKed its initial config, ms. */
    allAckedMs: number | null;
    acked: number;
    failed: number;
    errors: number;
    errorSamples: string[];
    serverCpu: number;
    loadgenCpu: number;
    wallMs: number;
    /** Ramps the figures are the medians of (each on a fresh server). */
    rounds: number;
  };
  /** Before any stream (after GC) and with every stream idle (after GC). */
  memory: { empty: Memory; idle: Memory };
  push?: PushSeries & { eventLoopP99: number | null; eventLoopMax: number | null };
}

export interface FleetResults {
  runs: FleetRun[];
  /** Bytes per idle stream: least-squares slope over the SotW fleets (0 streams included). */
  memoryPerStream: Partial<Record<ServerKind, { rss: number; heapUsed: number }>>;
}

async function memory(server: ServerProcess): Promise<Memory> {
  const stats = await server.stats({ gc: true });
  return { rss: server.rss(), heapUsed: stats.heapUsed };
}

async function runFleet(
  ctx: BenchContext,
  kind: ServerKind,
  mode: 'sotw' | 'delta',
  streams: number,
  resourcesPath: string,
): Promise<FleetRun> {
  return withServer(ctx, kind, resourcesPath, async (server) => {
    await settle(server.pid);
    const empty = await memory(server);
    return withLoadgen(ctx, server, { mode }, async (loadgen) => {
      const ramp = await measureRamp(server, loadgen, streams);
      await settle(server.pid);
      const idle = await memory(server);
      const run: FleetRun = { server: kind, mode, streams, ramp, memory: { empty, idle } };
      if (ctx.profile.fanout.includes(streams) && ramp.acked === streams) {
        await server.stats({ reset: true });
        const series = await runPushes(server, loadgen, ctx.profile.pushes, {
          warmups: warmupsFor(streams),
        });
        const loop = (await server.stats()).eventLoop;
        run.push = { ...series, eventLoopP99: loop?.p99 ?? null, eventLoopMax: loop?.max ?? null };
      }
      return run;
    });
  });
}

export async function fleetScenario(ctx: BenchContext): Promise<FleetResults> {
  const resourcesPath = writeBenchResources(ctx.workDir, { clusters: 2 });
  const runs: FleetRun[] = [];
  for (const mode of ['sotw', 'delta'] as const) {
    for (const streams of ctx.profile.fleet[mode]) {
      for (const kind of ctx.servers) {
        ctx.log(`fleet: ${kind} ${mode} ${streams} streams`);
        const run = await runFleet(ctx, kind, mode, streams, resourcesPath);
        ctx.log(
          `  first response p50 ${run.ramp.firstResponseP50} ms p99 ${run.ramp.firstResponseP99} ms, all ACKed ${run.ramp.allAckedMs} ms` +
            (run.push
              ? `; push p50 ${run.push.p50} p99 ${run.push.p99} max ${run.push.max} ms, ${run.push.serverCpuPerPush} CPU s/push`
              : ''),
        );
        runs.push(run);
      }
    }
  }
  await rampAgain(ctx, runs, resourcesPath);
  return { runs, memoryPerStream: memorySlopes(runs, ctx.servers) };
}

type Ramp = FleetRun['ramp'];

/** Ramps `streams` streams on a server that serves none yet; `rounds` is 1. */
async function measureRamp(
  server: ServerProcess,
  loadgen: Loadgen,
  streams: number,
): Promise<Ramp> {
  const [s0, l0, t0] = [server.cpuSeconds(), loadgen.cpuSeconds(), performance.now()];
  const ramp: ConnectReply = await loadgen.connect(streams, connectTimeoutMs(streams));
  const wallMs = performance.now() - t0;
  const [serverCpu, loadgenCpu] = [server.cpuSeconds() - s0, loadgen.cpuSeconds() - l0];
  return {
    firstResponseP50: ramp.firstResponse.p50 ?? Number.NaN,
    firstResponseP99: ramp.firstResponse.p99 ?? Number.NaN,
    allAckedMs: ramp.allAckedMs ?? null,
    acked: ramp.acked,
    failed: ramp.failed,
    errors: ramp.errors.count,
    errorSamples: ramp.errors.samples,
    serverCpu: round(serverCpu),
    loadgenCpu: round(loadgenCpu),
    wallMs: round(wallMs, 1),
    rounds: 1,
  };
}

/**
 * The ramps after each fleet's own (`profile.rampRounds` in all), each on a fresh server,
 * the servers' order reversed every other round; each run's ramp becomes their medians.
 */
async function rampAgain(ctx: BenchContext, runs: FleetRun[], resourcesPath: string) {
  const more = new Map<FleetRun, Ramp[]>(runs.map((run) => [run, []]));
  for (let round = 1; round < ctx.profile.rampRounds; round++) {
    for (const mode of ['sotw', 'delta'] as const) {
      for (const streams of ctx.profile.fleet[mode]) {
        const kinds = round % 2 === 1 ? [...ctx.servers].reverse() : ctx.servers;
        for (const kind of kinds) {
          const run = runs.find(
            (r) => r.server === kind && r.mode === mode && r.streams === streams,
          );
          if (!run) continue;
          ctx.log(`fleet: ${kind} ${mode} ${streams} streams, ramp ${round + 1}`);
          const ramp = await withServer(ctx, kind, resourcesPath, async (server) => {
            await settle(server.pid);
            // As before the fleet's own ramp: its memory read, after full GCs.
            await memory(server);
            return withLoadgen(ctx, server, { mode }, (loadgen) =>
              measureRamp(server, loadgen, streams),
            );
          });
          ctx.log(
            `  first response p50 ${ramp.firstResponseP50} ms, all ACKed ${ramp.allAckedMs} ms, server CPU ${ramp.serverCpu} s`,
          );
          more.get(run)?.push(ramp);
        }
      }
    }
  }
  for (const [run, ramps] of more) {
    if (ramps.length > 0) run.ramp = medianRamp([run.ramp, ...ramps]);
  }
}

/**
 * Each figure's median over the ramps; of the counts that judge a ramp sound (ACKed, failed,
 * errors), the worst, so that one bad ramp still shows.
 */
export function medianRamp(ramps: readonly Ramp[]): Ramp {
  const mid = (figure: (r: Ramp) => number, digits: number) =>
    round(median(ramps.map(figure)), digits);
  const allAcked = ramps.map((r) => r.allAckedMs);
  const failing = ramps.find((r) => r.errors > 0);
  return {
    firstResponseP50: mid((r) => r.firstResponseP50, 3),
    firstResponseP99: mid((r) => r.firstResponseP99, 3),
    allAckedMs: allAcked.every((ms) => ms !== null) ? mid((r) => r.allAckedMs ?? 0, 3) : null,
    acked: Math.min(...ramps.map((r) => r.acked)),
    failed: Math.max(...ramps.map((r) => r.failed)),
    errors: Math.max(...ramps.map((r) => r.errors)),
    errorSamples: failing?.errorSamples ?? [],
    serverCpu: mid((r) => r.serverCpu, 3),
    loadgenCpu: mid((r) => r.loadgenCpu, 3),
    wallMs: mid((r) => r.wallMs, 1),
    rounds: ramps.length,
  };
}

function memorySlopes(runs: readonly FleetRun[], servers: readonly ServerKind[]) {
  const result: FleetResults['memoryPerStream'] = {};
  for (const kind of servers) {
    const fleets = runs.filter((r) => r.server === kind && r.mode === 'sotw');
    if (fleets.length === 0) continue;
    const points = (field: keyof Memory) => [
      ...fleets.map((r) => ({ x: 0, y: r.memory.empty[field] })),
      ...fleets.map((r) => ({ x: r.streams, y: r.memory.idle[field] })),
    ];
    result[kind] = {
      rss: Math.round(slope(points('rss'))),
      heapUsed: Math.round(slope(points('heapUsed'))),
    };
  }
  return result;
}
