/**
 * Scenario f (resource-set size): 10, 1,000 and 10,000 clusters. For each: the time to
 * encode the whole CDS response once (inside the server, mean of a few), its size on the
 * wire, the time a small fleet takes to receive and ACK it, and a push of one changed
 * cluster to that fleet (the whole CDS set goes out again in SotW).
 */
import {
  connectTimeoutMs,
  settle,
  withLoadgen,
  withServer,
  type BenchContext,
} from '../lib/context.js';
import { round } from '../lib/proc.js';
import { runPushes, warmupsFor, type PushSeries } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { isFloor, type ServerKind } from '../lib/server-process.js';

export interface SetSizeRun {
  server: ServerKind;
  clusters: number;
  streams: number;
  encodeMs: number;
  cdsBytes: number;
  firstResponseP50: number;
  allAckedMs: number | null;
  rampServerCpu: number;
  push: PushSeries;
  rss: number;
  heapUsed: number;
}

export async function setSizeScenario(ctx: BenchContext): Promise<SetSizeRun[]> {
  const { streams, pushes } = ctx.profile.sizes;
  const runs: SetSizeRun[] = [];
  for (const clusters of ctx.profile.sizes.clusters) {
    const resourcesPath = writeBenchResources(ctx.workDir, { clusters });
    // Node's floors push too (the same bytes to every stream, nothing encoded): on the
    // smallest set only, where a push is short enough for the stack's own cost to show.
    const smallest = clusters === Math.min(...ctx.profile.sizes.clusters);
    for (const kind of ctx.servers.filter((k) => !isFloor(k) || smallest)) {
      ctx.log(`set size: ${kind}, ${clusters} clusters, ${streams} streams`);
      const run = await withServer(ctx, kind, resourcesPath, async (server) => {
        await settle(server.pid);
        const encoded = isFloor(kind)
          ? { ms: Number.NaN, bytes: Number.NaN }
          : await server.encode(clusters >= 10_000 ? 3 : 10);
        return withLoadgen(ctx, server, {}, async (loadgen) => {
          const s0 = server.cpuSeconds();
          const ramp = await loadgen.connect(streams, connectTimeoutMs(streams) * 4);
          const rampServerCpu = server.cpuSeconds() - s0;
          await settle(server.pid);
          // A small set's push runs too little code to get V8's optimizing tiers going in two
          // pushes: it gets the fleet scenario's warm-ups (the first push is reported apart).
          // A large set's push runs long enough on its own, and its pushes take seconds.
          // A small set's push is a few milliseconds of CPU: ten of them make a steadier
          // median than the large sets' few.
          const small = clusters <= 100;
          const warmups = small ? warmupsFor(streams) : 2;
          const push = await runPushes(server, loadgen, small ? Math.max(10, pushes) : pushes, {
            warmups,
          });
          const stats = await server.stats({ gc: true });
          return {
            server: kind,
            clusters,
            streams,
            encodeMs: round(encoded.ms),
            cdsBytes: encoded.bytes,
            firstResponseP50: ramp.firstResponse.p50 ?? Number.NaN,
            allAckedMs: ramp.allAckedMs ?? null,
            rampServerCpu: round(rampServerCpu),
            push,
            rss: server.rss(),
            heapUsed: stats.heapUsed,
          };
        });
      });
      ctx.log(
        `  encode ${run.encodeMs} ms, ${run.cdsBytes} B; all ACKed ${run.allAckedMs} ms; push p99 ${run.push.p99} ms, ${run.push.serverCpuPerPush} CPU s`,
      );
      runs.push(run);
    }
  }
  return runs;
}
