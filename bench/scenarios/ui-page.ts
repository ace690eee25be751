/**
 * Scenario f (the live page's cost): a push to 1,000 streams, every stream ACKing, timed with
 * no page open and with one page open (a server-sent event stream read as fast as it comes,
 * as a browser does), alternating the two in rounds so that drift on a shared machine falls
 * on both alike. The mock only: the peer has no page. Issue 14's target: ≤ 5 % growth of the
 * all-ACKed time with one page, nothing measurable with none.
 */
import { get, type ClientRequest } from 'node:http';
import { connectTimeoutMs, withLoadgen, withServer, type BenchContext } from '../lib/context.js';
import { round } from '../lib/proc.js';
import { runPushes, warmupsFor } from '../lib/pushes.js';
import { writeBenchResources } from '../lib/resource-set.js';
import type { ServerProcess } from '../lib/server-process.js';
import { median } from '../lib/stats.js';

export interface UiPageResults {
  streams: number;
  rounds: number;
  pushesPerRound: number;
  /** Each round's median all-ACKed time, ms. */
  noPage: number[];
  onePage: number[];
  /** Medians over the rounds, ms, and with-page / without. */
  noPageMs: number;
  onePageMs: number;
  ratio: number;
  /**
   * The server's CPU seconds per push (median over rounds), and with-page / without: on a
   * shared machine less noisy than the wall-clock times, and what the page adds in work.
   */
  noPageCpu: number;
  onePageCpu: number;
  cpuRatio: number;
  /** Bytes and events the page read in all. */
  pageBytes: number;
  pageEvents: number;
}

const STREAMS = 1_000;
const ROUNDS = 3;

/** A page reading `/ui/events` as fast as it arrives. */
interface Page {
  bytes: number;
  events: number;
  close(): void;
}

function openPage(server: ServerProcess): Promise<Page> {
  if (!server.controlUrl) throw new Error('the mock reported no control port');
  const url = `${server.controlUrl}/ui/events`;
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined = undefined;
    const page: Page = { bytes: 0, events: 0, close: () => request?.destroy() };
    request = get(url, (response) => {
      if (response.statusCode !== 200) reject(new Error(`${url}: HTTP ${response.statusCode}`));
      response.on('data', (chunk: Buffer) => {
        page.bytes += chunk.length;
        for (let i = chunk.indexOf('\n\n'); i >= 0; i = chunk.indexOf('\n\n', i + 2)) {
          page.events += 1;
        }
      });
      response.on('error', () => undefined);
      resolve(page);
    });
    request.on('error', reject);
  });
}

export async function uiPageScenario(ctx: BenchContext): Promise<UiPageResults> {
  const resourcesPath = writeBenchResources(ctx.workDir, { clusters: 2 });
  const pushes = ctx.profile.pushes;
  ctx.log(`ui page: mock, ${STREAMS} streams, ${ROUNDS} rounds of ${pushes} pushes each way`);
  return withServer(ctx, 'mock', resourcesPath, (server) =>
    withLoadgen(ctx, server, { mode: 'sotw' }, async (loadgen) => {
      const ramp = await loadgen.connect(STREAMS, connectTimeoutMs(STREAMS));
      if (ramp.acked !== STREAMS) throw new Error(`only ${ramp.acked}/${STREAMS} connected`);
      await runPushes(server, loadgen, 1, { warmups: warmupsFor(STREAMS) });
      const noPage: number[] = [];
      const onePage: number[] = [];
      const cpu: { none: number[]; one: number[] } = { none: [], one: [] };
      let pageBytes = 0;
      let pageEvents = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const without = await runPushes(server, loadgen, pushes);
        noPage.push(without.allAckedMs);
        cpu.none.push(without.serverCpuPerPush);
        const page = await openPage(server);
        try {
          // One push first, so that the page's snapshot and the hub's start are not timed.
          await runPushes(server, loadgen, 1);
          const withPage = await runPushes(server, loadgen, pushes);
          onePage.push(withPage.allAckedMs);
          cpu.one.push(withPage.serverCpuPerPush);
        } finally {
          page.close();
          pageBytes += page.bytes;
          pageEvents += page.events;
        }
      }
      const [a, b] = [median(noPage), median(onePage)];
      const results: UiPageResults = {
        streams: STREAMS,
        rounds: ROUNDS,
        pushesPerRound: pushes,
        noPage,
        onePage,
        noPageMs: round(a, 1),
        onePageMs: round(b, 1),
        ratio: round(b / a, 3),
        noPageCpu: round(median(cpu.none), 4),
        onePageCpu: round(median(cpu.one), 4),
        cpuRatio: round(median(cpu.one) / median(cpu.none), 3),
        pageBytes,
        pageEvents,
      };
      ctx.log(
        `  all ACKed (median of rounds): no page ${results.noPageMs} ms, one page ${results.onePageMs} ms (×${results.ratio}); server CPU per push ${results.noPageCpu} s vs ${results.onePageCpu} s (×${results.cpuRatio}); the page read ${pageBytes} bytes`,
      );
      return results;
    }),
  );
}
