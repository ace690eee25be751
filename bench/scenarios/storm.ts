/**
 * The reconnect storm (issue 27, target 2): a fleet of connected, ACKed streams; the server
 * goes `down` (its xDS port closes and every stream ends), then `up`; every simulated
 * sidecar reconnects after a jittered wait, as Envoy does, and fetches and ACKs its whole
 * config again. Timed from just before `up` until the last stream has ACKed again, with the
 * server's CPU for it. The mock goes down through its own control API (`POST /control/down`),
 * the peer through its bench API (`POST /bench/down`: its gRPC server stopped, listener and
 * connections closed; `up` serves the same xDS server on the same address again). Bare
 * node:http2 (the h2 floor, bench/servers/floor-h2.ts) goes through the same outages, to show
 * what Node's HTTP/2 alone costs a reconnect: it answers each type once and nothing else.
 *
 * The real-Envoy variant: N Envoys LIVE against each server, the same down and up, and the
 * time until every Envoy is back to `control_plane.connected_state` 1 with its CDS and LDS
 * versions unchanged.
 */
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { freePorts } from '../../src/util/ports.js';
import {
  connectTimeoutMs,
  pushingServers,
  settle,
  withLoadgen,
  withServer,
  type BenchContext,
} from '../lib/context.js';
import type { Summary } from '../lib/loadgen-process.js';
import { listenOverflows, round } from '../lib/proc.js';
import { median } from '../lib/stats.js';
import { writeBenchResources } from '../lib/resource-set.js';
import type { ServerKind, ServerProcess } from '../lib/server-process.js';

/** The wait before each reconnect or redial, jittered uniformly, the same for both servers. */
export const STORM_BACKOFF_MS = { min: 50, max: 500 } as const;

/** One outage of a fleet: `down`, every stream ended, then `up` until every one ACKed again. */
export interface StormRound {
  /** `down`: the call, and until the generator saw every stream end. */
  down: { httpMs: number; allEndedMs: number; reason: string | undefined };
  /** The `up` call itself (until its HTTP answer), ms. */
  upMs: number;
  /** `up` until every stream ACKed its config again (null: not all did before the deadline). */
  allAckedMs: number | null;
  acked: number;
  /** Per stream, from `up` until it ACKed again (includes its backoff). */
  rejoin: Summary;
  /** Per stream, from its new connection until it ACKed again (the server's part). */
  served: Summary;
  backoffs: number;
  /** Connections the kernel dropped from a full accept queue meanwhile (machine-wide). */
  listenOverflows: number;
  serverCpu: number;
  loadgenCpu: number;
}

export interface StormRun {
  server: ServerKind;
  mode: 'sotw' | 'delta';
  streams: number;
  rounds: StormRound[];
  /** Medians over the rounds. */
  median: {
    allAckedMs: number | null;
    servedP50: number;
    servedP99: number;
    serverCpu: number;
    listenOverflows: number;
  };
  errors: number;
  errorSamples: string[];
}

export interface EnvoyStormRun {
  server: ServerKind;
  envoys: number;
  /** Per round: from `up` until every Envoy reported `control_plane.connected_state` 1, ms. */
  allConnectedMs: (number | null)[];
  median: number | null;
  /** Envoys whose CDS and LDS version hashes were the same after as before, per round. */
  versionsUnchanged: number[];
  serverCpu: number[];
}

export interface StormResults {
  backoffMs: { min: number; max: number };
  rounds: number;
  runs: StormRun[];
  envoy: EnvoyStormRun[];
}

const medianOf = (values: readonly (number | null | undefined)[]): number | null => {
  const known = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
  return known.length === values.length && known.length > 0 ? round(median(known), 1) : null;
};

async function runStorm(
  ctx: BenchContext,
  kind: ServerKind,
  mode: 'sotw' | 'delta',
  streams: number,
  resourcesPath: string,
): Promise<StormRun> {
  return withServer(ctx, kind, resourcesPath, async (server) => {
    const options = { mode, reconnect: true, backoffMs: STORM_BACKOFF_MS };
    return withLoadgen(ctx, server, options, async (loadgen) => {
      const ramp = await loadgen.connect(streams, connectTimeoutMs(streams));
      if (ramp.acked !== streams) {
        throw new Error(
          `${kind} ${mode}: only ${ramp.acked} of ${streams} streams ACKed before the outage (${ramp.errors.samples.join('; ')})`,
        );
      }
      const rounds: StormRound[] = [];
      let errors = { count: 0, samples: [] as string[] };
      for (let i = 0; i < ctx.profile.storm.rounds; i++) {
        await settle(server.pid);
        const down = await loadgen.drop(server.downUrl, 30_000);
        if (down.error) throw new Error(`${kind} down: ${down.error}`);
        if (down.timedOut) {
          throw new Error(
            `${kind} down: ${down.streams - down.ended} of ${down.streams} streams still open after 30 s`,
          );
        }
        await settle(server.pid);
        const [s0, l0, o0] = [server.cpuSeconds(), loadgen.cpuSeconds(), listenOverflows()];
        const rejoin = await loadgen.rejoin(server.upUrl, connectTimeoutMs(streams));
        const [serverCpu, loadgenCpu] = [server.cpuSeconds() - s0, loadgen.cpuSeconds() - l0];
        const overflows = listenOverflows() - o0;
        if (rejoin.error) throw new Error(`${kind} up: ${rejoin.error}`);
        errors = rejoin.errors;
        rounds.push({
          down: {
            httpMs: down.httpMs,
            allEndedMs: down.allEndedMs,
            reason: down.reasons.samples[0],
          },
          upMs: rejoin.httpMs,
          allAckedMs: rejoin.allAckedMs ?? null,
          acked: rejoin.acked,
          rejoin: rejoin.latency,
          served: rejoin.served,
          backoffs: rejoin.backoffs,
          listenOverflows: overflows,
          serverCpu: round(serverCpu),
          loadgenCpu: round(loadgenCpu),
        });
        if (rejoin.timedOut) break;
      }
      return {
        server: kind,
        mode,
        streams,
        rounds,
        median: {
          allAckedMs: medianOf(rounds.map((r) => r.allAckedMs)),
          servedP50: medianOf(rounds.map((r) => r.served.p50)) ?? Number.NaN,
          servedP99: medianOf(rounds.map((r) => r.served.p99)) ?? Number.NaN,
          serverCpu: round(median(rounds.map((r) => r.serverCpu))),
          listenOverflows: median(rounds.map((r) => r.listenOverflows)),
        },
        errors: errors.count,
        errorSamples: errors.samples,
      };
    });
  });
}

type EnvoyState = { connected: number; cds: string; lds: string };

async function envoyState(envoy: EnvoyProcess): Promise<EnvoyState> {
  const stats = await envoy.stats();
  return {
    connected: Number(stats.get('control_plane.connected_state')),
    cds: String(stats.get('cluster_manager.cds.version')),
    lds: String(stats.get('listener_manager.lds.version')),
  };
}

/** Polls every Envoy until `done` holds for all of them, at most `timeoutMs`; the ms it took. */
async function until(
  envoys: readonly EnvoyProcess[],
  done: (state: EnvoyState, i: number) => boolean,
  timeoutMs: number,
): Promise<{ ms: number | null; states: EnvoyState[] }> {
  const started = performance.now();
  for (;;) {
    const states = await Promise.all(envoys.map(envoyState));
    if (states.every(done)) return { ms: round(performance.now() - started, 1), states };
    if (performance.now() - started > timeoutMs) return { ms: null, states };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function runEnvoyStorm(
  ctx: BenchContext,
  kind: ServerKind,
  count: number,
  resourcesPath: string,
): Promise<EnvoyStormRun> {
  return withServer(ctx, kind, resourcesPath, async (server: ServerProcess) => {
    const discoveryPort = Number(server.xdsAddress.split(':')[1]);
    const envoys: EnvoyProcess[] = [];
    try {
      for (let i = 0; i < count; i++) {
        envoys.push(
          await startEnvoy({
            bootstrap: makeSidecarBootstrap({ discoveryPort, adminPort: 0 }),
            logLevel: 'error',
          }),
        );
      }
      await Promise.all(envoys.map((e) => e.waitForLive({ intervalMs: 20, timeoutMs: 60_000 })));
      const before = await until(envoys, (s) => s.connected === 1, 30_000);
      if (before.ms === null) throw new Error(`${kind}: not every Envoy connected before down`);
      const same = (s: EnvoyState, i: number) =>
        s.cds === before.states[i]?.cds && s.lds === before.states[i]?.lds;
      const run: EnvoyStormRun = {
        server: kind,
        envoys: count,
        allConnectedMs: [],
        median: null,
        versionsUnchanged: [],
        serverCpu: [],
      };
      for (let r = 0; r < ctx.profile.storm.rounds; r++) {
        await server.outage('down');
        const gone = await until(envoys, (s) => s.connected === 0, 30_000);
        if (gone.ms === null)
          throw new Error(`${kind}: some Envoys still connected 30 s after down`);
        await settle(server.pid);
        const s0 = server.cpuSeconds();
        const t0 = performance.now();
        await server.outage('up');
        const back = await until(envoys, (s, i) => s.connected === 1 && same(s, i), 120_000);
        const elapsed = performance.now() - t0;
        run.serverCpu.push(round(server.cpuSeconds() - s0));
        run.allConnectedMs.push(back.ms === null ? null : round(elapsed, 1));
        run.versionsUnchanged.push(back.states.filter(same).length);
        if (back.ms === null) break;
      }
      run.median = medianOf(run.allConnectedMs);
      return run;
    } finally {
      await Promise.all(envoys.map((e) => e.stop().catch(() => undefined)));
    }
  });
}

export async function stormScenario(ctx: BenchContext): Promise<StormResults> {
  // The lab set, on free listener ports: the Envoys bind them (every Envoy the same ones, as
  // Envoy's listeners set SO_REUSEPORT); the generator never binds anything.
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const resourcesPath = writeBenchResources(ctx.workDir, {
    clusters: 2,
    lab: { inboundPort, outboundPort },
  });
  const servers = pushingServers(ctx);
  const fleetServers = [...servers, ...ctx.servers.filter((kind) => kind === 'h2')];
  const runs: StormRun[] = [];
  for (const mode of ['sotw', 'delta'] as const) {
    for (const streams of ctx.profile.storm[mode]) {
      for (const kind of fleetServers) {
        ctx.log(`storm: ${kind} ${mode} ${streams} streams, down then up`);
        const run = await runStorm(ctx, kind, mode, streams, resourcesPath);
        ctx.log(
          `  all ACKed again ${run.rounds.map((r) => `${r.acked}/${streams} in ${r.allAckedMs}`).join(', ')} ms after up (median ${run.median.allAckedMs}); connection to ACK p50 ${run.median.servedP50} p99 ${run.median.servedP99} ms; server CPU ${run.median.serverCpu} s; accept-queue overflows ${run.rounds.map((r) => r.listenOverflows).join(', ')}`,
        );
        runs.push(run);
      }
    }
  }
  const envoy: EnvoyStormRun[] = [];
  for (const kind of servers) {
    ctx.log(`storm: ${ctx.profile.storm.envoys} Envoys on ${kind}, down then up`);
    const run = await runEnvoyStorm(ctx, kind, ctx.profile.storm.envoys, resourcesPath);
    ctx.log(
      `  all connected again ${run.allConnectedMs.join(', ')} ms after up (median ${run.median}), versions unchanged ${run.versionsUnchanged.join(', ')} of ${run.envoys}`,
    );
    envoy.push(run);
  }
  return { backoffMs: { ...STORM_BACKOFF_MS }, rounds: ctx.profile.storm.rounds, runs, envoy };
}
