/**
 * Scenarios a (connect ramp), b (fan-out push), c (memory per idle stream) and e (event-loop
 * delay during pushes), on one fleet per server, protocol and stream count: a fresh server
 * serving the lab set; N simulated sidecars connect at once (ramp); once all are idle, the
 * server's memory is read after a full GC; then, at the fan-out counts, pushes are timed.
 *
 * A ramp's figures are the medians of `profile.rampRounds` ramps per server, each on a fresh
 * server: the fleet's own, then the others, the servers' order reversed every other round.
 * At the fan-out counts the first `profile.pushRounds` of those fleets are also pushed to,
 * and the push figures are the medians over them. One fleet per server left a ratio at the
 * mercy of the machine's drift between two of them (±0.1 from run to run on a quiet machine,
 * ±0.3 for a push); and this machine has moments, a second or so, when everything on it runs
 * half as fast again (a fresh server's 1,000-stream ramp: 650–700 µs of CPU a connection,
 * sometimes 840–1,010, the count of functions V8 optimized unchanged): of 3 ramps, two could
 * meet one, of 5 the median stays clear of two.
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
  push?: FleetPush;
}

/** A fleet's pushes; over several fleets, each figure's median (see {@link medianPush}). */
export type FleetPush = PushSeries & {
  eventLoopP99: number | null;
  eventLoopMax: number | null;
  /** Fleets the figures are the medians of (each on a fresh server). */
  fleets: number;
};

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
      const push = await measurePushes(ctx, server, loadgen, streams, ramp);
      if (push) run.push = push;
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

/** At a fan-out count, on a fleet whose every stream ACKed: warm-up pushes, then the timed ones. */
async function measurePushes(
  ctx: BenchContext,
  server: ServerProcess,
  loadgen: Loadgen,
  streams: number,
  ramp: Ramp,
): Promise<FleetPush | undefined> {
  if (!ctx.profile.fanout.includes(streams) || ramp.acked !== streams) return undefined;
  await server.stats({ reset: true });
  const series = await runPushes(server, loadgen, ctx.profile.pushes, {
    warmups: warmupsFor(streams),
  });
  const loop = (await server.stats()).eventLoop;
  return {
    ...series,
    eventLoopP99: loop?.p99 ?? null,
    eventLoopMax: loop?.max ?? null,
    fleets: 1,
  };
}

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
 * The fleets after each one's own (`profile.rampRounds` in all), each on a fresh server, the
 * servers' order reversed every other round: a ramp, and at the fan-out counts the pushes;
 * each run's ramp and push become their medians.
 */
async function rampAgain(ctx: BenchContext, runs: FleetRun[], resourcesPath: string) {
  const more = new Map<FleetRun, Ramp[]>(runs.map((run) => [run, []]));
  const pushes = new Map<FleetRun, FleetPush[]>();
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
          const { ramp, push } = await withServer(ctx, kind, resourcesPath, async (server) => {
            await settle(server.pid);
            // As before the fleet's own ramp: its memory read, after full GCs (and after it).
            await memory(server);
            return withLoadgen(ctx, server, { mode }, async (loadgen) => {
              const ramp = await measureRamp(server, loadgen, streams);
              if (!run.push || round >= ctx.profile.pushRounds) return { ramp, push: undefined };
              await settle(server.pid);
              await memory(server);
              return { ramp, push: await measurePushes(ctx, server, loadgen, streams, ramp) };
            });
          });
          ctx.log(
            `  first response p50 ${ramp.firstResponseP50} ms, all ACKed ${ramp.allAckedMs} ms, server CPU ${ramp.serverCpu} s` +
              (push
                ? `; push all ACKed ${push.allAckedMs} ms, ${push.serverCpuPerPush} CPU s/push`
                : ''),
          );
          more.get(run)?.push(ramp);
          if (push) pushes.set(run, [...(pushes.get(run) ?? []), push]);
        }
      }
    }
  }
  for (const [run, ramps] of more) {
    if (ramps.length > 0) run.ramp = medianRamp([run.ramp, ...ramps]);
  }
  for (const [run, series] of pushes) {
    if (run.push) run.push = medianPush([run.push, ...series]);
  }
}

/**
 * Each figure's median over the fleets' pushes; the slowest ACK of all, every push counted,
 * each fleet's p99s in order, and of the counts that judge a series sound, the worst.
 */
export function medianPush(series: readonly FleetPush[]): FleetPush {
  const mid = (figure: (p: FleetPush) => number | null, digits: number) => {
    const known = series.map(figure).filter((v): v is number => v !== null && !Number.isNaN(v));
    return known.length === 0 ? Number.NaN : round(median(known), digits);
  };
  const failing = series.find((p) => p.errors > 0);
  const loopMax = series.map((p) => p.eventLoopMax).filter((v): v is number => v !== null);
  return {
    pushes: series.reduce((sum, p) => sum + p.pushes, 0),
    incomplete: series.reduce((sum, p) => sum + p.incomplete, 0),
    streams: Math.min(...series.map((p) => p.streams)),
    p50: mid((p) => p.p50, 3),
    p99: mid((p) => p.p99, 3),
    max: Math.max(...series.map((p) => p.max)),
    allAckedMs: mid((p) => p.allAckedMs, 3),
    firstPushAllAckedMs: mid((p) => p.firstPushAllAckedMs, 3),
    acceptMs: mid((p) => p.acceptMs, 3),
    serverCpuPerPush: mid((p) => p.serverCpuPerPush, 4),
    loadgenCpuPerPush: mid((p) => p.loadgenCpuPerPush, 4),
    responsesPerPush: mid((p) => p.responsesPerPush, 1),
    serverCpuPerResponseUs: mid((p) => p.serverCpuPerResponseUs, 1),
    p99s: series.flatMap((p) => p.p99s),
    errors: Math.max(...series.map((p) => p.errors)),
    errorSamples: failing?.errorSamples ?? [],
    eventLoopP99: series.some((p) => p.eventLoopP99 !== null)
      ? mid((p) => p.eventLoopP99, 3)
      : null,
    eventLoopMax: loopMax.length > 0 ? Math.max(...loopMax) : null,
    fleets: series.reduce((sum, p) => sum + p.fleets, 0),
  };
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
