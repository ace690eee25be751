/**
 * Scenarios a (connect ramp), b (fan-out push), c (memory per idle stream) and e (event-loop
 * delay during pushes), on one fleet per server, protocol and stream count: a fresh server
 * serving the lab set; N simulated sidecars connect at once (ramp); once all are idle, the
 * server's memory is read after a full GC; then, at the fan-out counts, pushes are timed.
 */
import {
  connectTimeoutMs,
  settle,
  withLoadgen,
  withServer,
  type BenchContext,
} from '../lib/context.js';
import type { ConnectReply } from '../lib/loadgen-process.js';
import { round } from '../lib/proc.js';
import { runPushes, warmupsFor, type PushSeries } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import type { ServerKind, ServerProcess } from '../lib/server-process.js';
import { slope } from '../lib/stats.js';

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
      const [s0, l0, t0] = [server.cpuSeconds(), loadgen.cpuSeconds(), performance.now()];
      const ramp: ConnectReply = await loadgen.connect(streams, connectTimeoutMs(streams));
      const wallMs = performance.now() - t0;
      const [serverCpu, loadgenCpu] = [server.cpuSeconds() - s0, loadgen.cpuSeconds() - l0];
      await settle(server.pid);
      const idle = await memory(server);
      const run: FleetRun = {
        server: kind,
        mode,
        streams,
        ramp: {
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
        },
        memory: { empty, idle },
      };
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
  return { runs, memoryPerStream: memorySlopes(runs, ctx.servers) };
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
