/**
 * The reconnect storm's rejoin alone (bench/scenarios/storm.ts), for one fleet: a fresh
 * server per kind, `--streams` connected and ACKed, then `--rounds` outages (`down`, every
 * stream ended, `up`), with the sidecars' backoff given by `--backoff min-max` (ms; the
 * scenario's is 50-500). Prints, per outage, the time until every stream ACKed again, the
 * new-connection-to-ACK p50/p99 and the server's CPU; `--profile f.cpuprofile` records the
 * rejoin `--profile-round` (default 1) of each Node server (the mock, the floors) through its
 * bench API's inspector (200 µs sampling), in `f-<server>.cpuprofile`: a later one is warm.
 * `--compiles` counts the functions V8 optimized in each Node server during each rejoin: a
 * server still warming up (its once-per-connection code reaching TurboFan only after
 * thousands of connections) from a warm one.
 * `--mock-flags=…` (with `=`) starts the mock with Node/V8 flags.
 *
 *   npx tsx bench/micro/storm-probe.ts [--streams 1000] [--rounds 3] [--delta]
 *                                      [--backoff 50-500] [--servers mock,peer] [--profile f]
 *                                      [--profile-round 1]
 *                                      [--compiles] [--mock-flags='--max-semi-space-size=32 …']
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connectTimeoutMs, settle, withLoadgen, withServer } from '../lib/context.js';
import { probeContext } from '../lib/probe-context.js';
import { ioCalls, round } from '../lib/proc.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { describeCompiles, probeServer } from '../lib/v8-compiles.js';
import { SERVER_KINDS, type ServerKind } from '../lib/server-process.js';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    delta: { type: 'boolean', default: false },
    backoff: { type: 'string', default: '50-500' },
    servers: { type: 'string', default: 'mock,peer' },
    profile: { type: 'string' },
    'profile-round': { type: 'string', default: '1' },
    compiles: { type: 'boolean', default: false },
    'mock-flags': { type: 'string' },
  },
});
const kinds = values.servers.split(',').map((s) => s.trim()) as ServerKind[];
const [min, max] = values.backoff.split('-').map(Number);
const streams = Number(values.streams);
const rounds = Number(values.rounds);
const profileRound = Number(values['profile-round']);
if (
  kinds.some((k) => !SERVER_KINDS.includes(k)) ||
  ![min, max, streams, rounds, profileRound].every((n) => Number.isInteger(n) && (n ?? 0) > 0)
) {
  process.stderr.write(
    'storm-probe: --streams, --rounds, --profile-round: positive; --backoff min-max (ms)\n',
  );
  process.exit(2);
}
const mode = values.delta ? 'delta' : 'sotw';
const ctx = probeContext('storm-probe', kinds);
const { workDir } = ctx;

async function storm(kind: ServerKind, resources: string): Promise<void> {
  const { extra, counter } = probeServer(kind, {
    mockFlags: values['mock-flags'],
    compiles: values.compiles,
  });
  await withServer(
    ctx,
    kind,
    resources,
    async (server) => {
      const options = { mode, reconnect: true, backoffMs: { min: min!, max: max! } } as const;
      await withLoadgen(ctx, server, options, async (loadgen) => {
        const ramp = await loadgen.connect(streams, connectTimeoutMs(streams));
        if (ramp.acked !== streams) throw new Error(`${kind}: ${ramp.acked}/${streams} ACKed`);
        for (let i = 0; i < rounds; i++) {
          await settle(server.pid);
          const down = await loadgen.drop(server.downUrl, 30_000);
          if (down.error || down.timedOut) throw new Error(`${kind} down: ${JSON.stringify(down)}`);
          await settle(server.pid);
          const profile =
            i === profileRound - 1 && kind !== 'peer' && values.profile
              ? values.profile.replace(/(\.cpuprofile)?$/, `-${kind}$1`)
              : undefined;
          if (profile) await server.benchPost('/bench/profile/start?intervalUs=200');
          const cpu0 = server.cpuSeconds();
          const io0 = ioCalls(server.pid);
          counter?.start();
          const rejoin = await loadgen.rejoin(server.upUrl, connectTimeoutMs(streams));
          const cpu = server.cpuSeconds() - cpu0;
          const io = ioCalls(server.pid);
          const compiles = counter?.stop();
          const per = (n: number) => (n / streams).toFixed(1);
          if (profile) await server.benchPost(`/bench/profile/stop?file=${resolve(profile)}`);
          ctx.log(
            `${kind} ${mode} ${streams} backoff ${min}-${max}: all ACKed ${rejoin.allAckedMs} ms; ` +
              `connection to ACK p50 ${rejoin.served.p50} p99 ${rejoin.served.p99} ms; ` +
              `server CPU ${round(cpu)} s (${Math.round((cpu * 1e6) / streams)} µs/stream); ` +
              `reads ${per(io.reads - io0.reads)}, writes ${per(io.writes - io0.writes)} per stream` +
              (compiles ? `; ${describeCompiles(compiles)}` : ''),
          );
        }
      });
    },
    extra,
  );
}

try {
  const resources = writeBenchResources(workDir, { clusters: 2 });
  for (const kind of kinds) await storm(kind, resources);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
