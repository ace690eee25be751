/**
 * Scenario d (slow consumer): one stream stops reading while pushes go on. The others' push
 * latency must not grow, and the server's memory must not grow with each push (a server that
 * queued every version for the stuck stream would grow by a response per push).
 *
 * The resource set has 1,000 clusters (a CDS response of ~100 KB) and the generator's HTTP/2
 * windows are 64 KiB, so the stuck stream's flow-control window is full after one push and
 * the server feels the backpressure at once.
 */
import {
  connectTimeoutMs,
  pushingServers,
  settle,
  withLoadgen,
  withServer,
  type BenchContext,
} from '../lib/context.js';
import { runPushes, type PushSeries } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import type { ServerKind } from '../lib/server-process.js';
import { slope } from '../lib/stats.js';

export interface SlowConsumerRun {
  server: ServerKind;
  streams: number;
  clusters: number;
  before: PushSeries;
  after: PushSeries;
  /** RSS before the stream stalled and after the last push (after GC), bytes. */
  rssBefore: number;
  rssAfter: number;
  /** RSS growth per push while one stream is stuck (least-squares slope), bytes. */
  rssPerPush: number;
  heapBefore: number;
  heapAfter: number;
}

const WINDOW = 65_535;

export async function slowConsumerScenario(ctx: BenchContext): Promise<SlowConsumerRun[]> {
  const { streams, clusters, pushesBefore, pushesAfter } = ctx.profile.slow;
  const resourcesPath = writeBenchResources(ctx.workDir, { clusters });
  const runs: SlowConsumerRun[] = [];
  for (const kind of pushingServers(ctx)) {
    ctx.log(`slow consumer: ${kind}, ${streams} streams, ${clusters} clusters`);
    const run = await withServer(ctx, kind, resourcesPath, (server) =>
      withLoadgen(ctx, server, { window: WINDOW }, async (loadgen) => {
        const ramp = await loadgen.connect(streams, connectTimeoutMs(streams));
        if (ramp.acked !== streams)
          throw new Error(`only ${ramp.acked}/${streams} streams connected`);
        const before = await runPushes(server, loadgen, pushesBefore, { warmups: 5 });
        await settle(server.pid);
        const heapBefore = (await server.stats({ gc: true })).heapUsed;
        const rssBefore = server.rss();
        await loadgen.stall(1);
        const rss: { x: number; y: number }[] = [];
        let pushed = 0;
        const after = await runPushes(server, loadgen, pushesAfter, {
          afterEach: () => rss.push({ x: ++pushed, y: server.rss() }),
        });
        const heapAfter = (await server.stats({ gc: true })).heapUsed;
        return {
          server: kind,
          streams,
          clusters,
          before,
          after,
          rssBefore,
          rssAfter: server.rss(),
          rssPerPush: Math.round(slope(rss)),
          heapBefore,
          heapAfter,
        };
      }),
    );
    ctx.log(
      `  others' p99 ${run.before.p99} → ${run.after.p99} ms; RSS ${(run.rssBefore / 2 ** 20).toFixed(1)} → ${(run.rssAfter / 2 ** 20).toFixed(1)} MiB`,
    );
    runs.push(run);
  }
  return runs;
}
