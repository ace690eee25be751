/**
 * The connect ramp alone, in same-run pairs: for each round, a fresh mock and a fresh bare
 * grpc-js floor (alternating which goes first), each pinned to CPU 0 with the generator on
 * CPU 1, ramp `--streams` SotW (or delta) streams until every initial config is ACKed. Prints
 * each server's server CPU per connection, the time until all ACKed and the first response
 * p50, and the mock's ratios to grpc-js, round by round and as medians: the quick way to see
 * what a change to the connect path buys on a shared, noisy machine.
 *
 *   npx tsx bench/micro/connect-probe.ts [--streams 1000] [--rounds 3] [--delta] [--warm 0]
 *       [--servers mock,grpcjs] [--profile ramp.cpuprofile | --alloc ramp.heapprofile]
 *       [--compiles] [--mock-flags='--no-lazy …']
 *
 * A Node server's CPU is split between its main thread, where the JavaScript runs, and its
 * other threads: V8's workers, which collect garbage and compile optimized code beside it, on
 * the same pinned CPU. `--compiles` also counts the functions V8 optimized during the ramp (the
 * servers run with `--trace-opt`), and the compile time V8 reports for them: what a fresh
 * process pays to warm up. `--mock-flags=…` (with `=`: its value starts with a dash) starts
 * the mock, and only the mock, with these Node or V8 flags: what a flag would change, against
 * the floors as they are.
 *
 * `--warm N` first connects N streams, unmeasured, so that the measured ramp meets a server
 * whose code V8 has already compiled and optimized: the difference from a cold ramp is what
 * the first connections of a fresh process pay for that.
 *
 * `--profile ramp.cpuprofile` records, in the first round, a CPU profile of each server's ramp
 * through its bench API's inspector (200 µs sampling): `ramp-mock.cpuprofile`,
 * `ramp-grpcjs.cpuprofile`. `--alloc ramp.heapprofile` records its allocations instead, the
 * collected ones included (`ramp-mock.heapprofile`; bench/micro/alloc-top.ts reads them).
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connectTimeoutMs, settle, withLoadgen, withServer } from '../lib/context.js';
import { probeContext } from '../lib/probe-context.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { describeCompiles, probeServer, type Compiles } from '../lib/v8-compiles.js';
import { SERVER_KINDS, type ServerKind } from '../lib/server-process.js';
import { median } from '../lib/stats.js';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    delta: { type: 'boolean', default: false },
    warm: { type: 'string', default: '0' },
    servers: { type: 'string', default: 'mock,grpcjs' },
    profile: { type: 'string' },
    alloc: { type: 'string' },
    compiles: { type: 'boolean', default: false },
    'mock-flags': { type: 'string' },
  },
});
const kinds = (values.servers ?? '').split(',').map((s) => s.trim()) as ServerKind[];
if (kinds.some((k) => !SERVER_KINDS.includes(k))) {
  process.stderr.write(`connect-probe: --servers: expected some of ${SERVER_KINDS.join(', ')}\n`);
  process.exit(2);
}
const streams = Number(values.streams);
const warm = Number(values.warm);
const rounds = Number(values.rounds);
const mode = values.delta ? 'delta' : 'sotw';
const ctx = probeContext('connect-probe', kinds);
const { workDir } = ctx;

interface Ramp {
  cpuUsPerConn: number;
  /** Of which a Node server's main thread's, and its other threads' (V8's workers). */
  mainUsPerConn: number | undefined;
  otherUsPerConn: number | undefined;
  allAckedMs: number;
  firstP50: number;
  /** With `--compiles`: functions V8 optimized during the ramp, and their compile time. */
  compiles: Compiles | undefined;
}

async function ramp(kind: ServerKind, resources: string, profile?: string): Promise<Ramp> {
  const { extra, counter } = probeServer(kind, {
    mockFlags: values['mock-flags'],
    compiles: values.compiles,
  });
  const perConn = (seconds: number) => (seconds * 1e6) / streams;
  return withServer(
    ctx,
    kind,
    resources,
    async (server) => {
      await settle(server.pid);
      return withLoadgen(ctx, server, { mode }, async (loadgen) => {
        const alloc = values.alloc === undefined ? '' : '&alloc=1';
        if (warm > 0) {
          const warmed = await loadgen.connect(warm, connectTimeoutMs(warm));
          if (warmed.acked !== warm)
            throw new Error(`${kind}: only ${warmed.acked} of ${warm} warm-up streams ACKed`);
          await settle(server.pid);
        }
        if (profile) await server.benchPost(`/bench/profile/start?intervalUs=200${alloc}`);
        const cpu0 = server.cpuSeconds();
        const threads0 = server.threadCpuSeconds();
        counter?.start();
        const reply = await loadgen.connect(streams, connectTimeoutMs(streams));
        if (reply.acked !== streams) {
          throw new Error(`${kind}: only ${reply.acked} of ${streams} streams ACKed`);
        }
        await settle(server.pid);
        const compiles = counter?.stop();
        const cpu = server.cpuSeconds() - cpu0;
        const threads = server.threadCpuSeconds();
        // Go's scheduler runs goroutines on any of its threads: no split for the peer.
        const main =
          kind !== 'peer' && threads.has('main')
            ? perConn((threads.get('main') ?? 0) - (threads0.get('main') ?? 0))
            : undefined;
        if (profile) await server.benchPost(`/bench/profile/stop?file=${resolve(profile)}`);
        return {
          cpuUsPerConn: perConn(cpu),
          mainUsPerConn: main,
          otherUsPerConn: main === undefined ? undefined : perConn(cpu) - main,
          allAckedMs: reply.allAckedMs ?? Number.NaN,
          firstP50: reply.firstResponse.p50 ?? Number.NaN,
          compiles,
        };
      });
    },
    extra,
  );
}

/** A ramp's figures as a round's line and the medians print them. */
function describe(kind: ServerKind, r: Ramp): string {
  const split =
    r.mainUsPerConn === undefined
      ? ''
      : ` (main thread ${r.mainUsPerConn.toFixed(0)}, other threads ${(r.otherUsPerConn ?? 0).toFixed(0)})`;
  const compiles = r.compiles ? `, ${describeCompiles(r.compiles)}` : '';
  return (
    `${kind} ${r.cpuUsPerConn.toFixed(0)} µs/conn${split}, all ACKed ${r.allAckedMs.toFixed(0)} ms, ` +
    `first p50 ${r.firstP50.toFixed(1)} ms${compiles}`
  );
}

try {
  const resources = writeBenchResources(workDir, { clusters: 2 });
  const results = new Map<ServerKind, Ramp[]>(kinds.map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? kinds : [...kinds].reverse();
    const line: string[] = [];
    for (const kind of order) {
      const asked = values.alloc ?? values.profile;
      const profile =
        round === 0 && asked
          ? asked.replace(/(\.cpuprofile|\.heapprofile)?$/, `-${kind}$1`)
          : undefined;
      const r = await ramp(kind, resources, profile);
      results.get(kind)?.push(r);
      line.push(describe(kind, r));
    }
    const [m, g] = [results.get('mock')?.[round], results.get('grpcjs')?.[round]];
    const ratio =
      m && g
        ? ` | mock/grpcjs: CPU ${(m.cpuUsPerConn / g.cpuUsPerConn).toFixed(2)}×, ` +
          `all ACKed ${(m.allAckedMs / g.allAckedMs).toFixed(2)}×, first p50 ${(m.firstP50 / g.firstP50).toFixed(2)}×`
        : '';
    ctx.log(
      `round ${round + 1} (${mode} ${streams}${warm > 0 ? `, after ${warm} warm-up streams` : ''}): ${line.join('; ')}${ratio}`,
    );
  }
  for (const kind of kinds) {
    const ramps = results.get(kind) ?? [];
    const med = (f: (r: Ramp) => number) => median(ramps.map(f));
    const maybe = (f: (r: Ramp) => number | undefined) =>
      ramps.every((r) => f(r) !== undefined) ? med((r) => f(r) ?? 0) : undefined;
    const count = maybe((r) => r.compiles?.count);
    const medianRamp: Ramp = {
      cpuUsPerConn: med((r) => r.cpuUsPerConn),
      mainUsPerConn: maybe((r) => r.mainUsPerConn),
      otherUsPerConn: maybe((r) => r.otherUsPerConn),
      allAckedMs: med((r) => r.allAckedMs),
      firstP50: med((r) => r.firstP50),
      compiles:
        count === undefined
          ? undefined
          : {
              count,
              turbofan: maybe((r) => r.compiles?.turbofan) ?? 0,
              ms: maybe((r) => r.compiles?.ms) ?? 0,
            },
    };
    ctx.log(`median ${describe(kind, medianRamp)}`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
