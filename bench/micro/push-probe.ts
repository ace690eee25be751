/**
 * One server under benchmark, one fleet, many pushes: the quick way to see what a change to
 * the push path buys, without the whole `npm run bench`. Starts the server as the harness
 * does (compiled, pinned to CPU 0, the generator on CPU 1), connects the fleet, makes
 * warm-up pushes, then times pushes two ways: through the generator (trigger → every stream
 * ACKed, and the bench API's round trip), and inside the server (the `ms` its `/bench/push`
 * returns: `setResources` and the synchronous pass over every stream, in wall time and in
 * CPU time, which other work on the machine does not inflate). Medians. Also the server's CPU
 * per push through the generator as the bench counts it (the push, its ACKs and the quiet after
 * it), with the process's idle CPU taken out, and that per response sent.
 *
 *   npx tsx bench/micro/push-probe.ts [--server mock|peer|h2|grpcjs] [--streams 5000]
 *       [--clusters 2] [--pushes 20] [--delta] [--profile out.cpuprofile]
 *       [--mock-flags='--perf-basic-prof …']
 *
 * `--profile` (the mock only) records a CPU profile of the timed pushes through the bench
 * API's inspector (100 µs sampling, which slows the push by about a third). `--mock-flags=…`
 * (with `=`: its value starts with a dash) starts the mock with Node/V8 flags, e.g. for `perf`.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { settle, withLoadgen, withServer } from '../lib/context.js';
import { probeContext } from '../lib/probe-context.js';
import { warmupsFor } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { SERVER_KINDS, type ServerKind } from '../lib/server-process.js';
import { median } from '../lib/stats.js';
import { probeServer } from '../lib/v8-compiles.js';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'mock' },
    streams: { type: 'string', default: '5000' },
    clusters: { type: 'string', default: '2' },
    pushes: { type: 'string', default: '20' },
    delta: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'mock-flags': { type: 'string' },
  },
});
const kind = values.server as ServerKind;
if (!SERVER_KINDS.includes(kind)) {
  process.stderr.write(`push-probe: --server: expected one of ${SERVER_KINDS.join(', ')}\n`);
  process.exit(2);
}
const [streams, clusters, pushes] = [values.streams, values.clusters, values.pushes].map(Number);
const ctx = probeContext('probe', [kind]);
const { workDir } = ctx;

try {
  const resources = writeBenchResources(workDir, { clusters: clusters ?? 2 });
  const mode = values.delta ? 'delta' : 'sotw';
  await withServer(
    ctx,
    kind,
    resources,
    (server) =>
      withLoadgen(ctx, server, { mode }, async (loadgen) => {
        const ramp = await loadgen.connect(streams ?? 0, 120_000);
        if (ramp.acked !== streams)
          throw new Error(`only ${ramp.acked} of ${streams} streams ACKed`);
        ctx.log(
          `${kind} ramp of ${streams}: first response p50 ${ramp.firstResponse.p50?.toFixed(1)} ms, ` +
            `all initial configs ACKed ${ramp.allAckedMs?.toFixed(0)} ms`,
        );
        await settle(server.pid);
        for (let i = 0; i < warmupsFor(streams ?? 1); i++)
          await loadgen.push(server.pushUrl, 30_000);
        const bench = server.pushUrl.replace(/\/bench\/push$/, '');
        const post = async (path: string) => {
          const res = await fetch(`${bench}${path}`, { method: 'POST' });
          if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
          return (await res.json()) as { ms?: number; cpuMs?: number };
        };
        if (values.profile) await post('/bench/profile/start?intervalUs=100');
        const allAcked: number[] = [];
        const p50s: number[] = [];
        const loadgenCpu: number[] = [];
        const roundTrip: number[] = [];
        const inside: number[] = [];
        const insideCpu: number[] = [];
        const windowCpu: number[] = [];
        const responses: number[] = [];
        // What the bench's CPU per push sees: the push and the quiet that follows it.
        const idle0 = [server.cpuSeconds(), performance.now()] as const;
        await new Promise((r) => setTimeout(r, 2_000));
        const idlePerSecond =
          (server.cpuSeconds() - idle0[0]) / ((performance.now() - idle0[1]) / 1e3);
        for (let i = 0; i < (pushes ?? 1); i++) {
          const cpu0 = [server.cpuSeconds(), performance.now()] as const;
          const loadgen0 = loadgen.cpuSeconds();
          const reply = await loadgen.push(server.pushUrl, 30_000);
          allAcked.push(reply.latency.max ?? Number.NaN);
          p50s.push(reply.latency.p50 ?? Number.NaN);
          roundTrip.push(reply.httpMs);
          responses.push(reply.responsesAtTrigger);
          await settle(server.pid, 500);
          const seconds = (performance.now() - cpu0[1]) / 1e3;
          windowCpu.push((server.cpuSeconds() - cpu0[0] - idlePerSecond * seconds) * 1e3);
          loadgenCpu.push((loadgen.cpuSeconds() - loadgen0) * 1e3);
          const direct = await post('/bench/push');
          inside.push(direct.ms ?? Number.NaN);
          insideCpu.push(direct.cpuMs ?? Number.NaN);
          await settle(server.pid, 500);
        }
        if (values.profile) await post(`/bench/profile/stop?file=${resolve(values.profile)}`);
        const ms = (list: number[]) => median(list).toFixed(2);
        ctx.log(
          `${kind} ${mode} ${streams} streams, ${clusters} clusters, ${pushes} pushes (medians): ` +
            `ACK p50 ${ms(p50s)} ms, all ACKed ${ms(allAcked)} ms, bench API round trip ${ms(roundTrip)} ms, ` +
            `push inside the server ${ms(inside)} ms (CPU ${ms(insideCpu)} ms)`,
        );
        const perPush =
          (responses[responses.length - 1]! - responses[0]!) / (responses.length - 1) / 2;
        ctx.log(
          `${kind} idle CPU ${(idlePerSecond * 1e3).toFixed(1)} ms/s; server CPU per push through the ` +
            `generator, idle taken out, ${ms(windowCpu)} ms: ${((median(windowCpu) * 1e3) / perPush).toFixed(0)} µs ` +
            `per response of ${perPush.toFixed(0)}; the generator's CPU per push ${ms(loadgenCpu)} ms`,
        );
      }),
    probeServer(kind, { mockFlags: values['mock-flags'], compiles: false }).extra,
  );
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
