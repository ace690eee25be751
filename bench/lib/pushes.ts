/**
 * Times a series of pushes: for each, the generator triggers one change through the server's
 * bench API and reports when every reading stream ACKed it; the harness adds the CPU seconds
 * the server (and the generator) used, until the server is idle again.
 */
import { settle } from './context.js';
import type { Loadgen, PushReply } from './loadgen-process.js';
import { round } from './proc.js';
import type { ServerProcess } from './server-process.js';
import { median } from './stats.js';

export interface PushSeries {
  pushes: number;
  /** Pushes where not every reading stream ACKed within the deadline. */
  incomplete: number;
  /** Streams expected to ACK each push. */
  streams: number;
  /** Time from trigger to each stream's ACK, ms: median over pushes of each push's p50/p99. */
  p50: number;
  p99: number;
  /** The slowest ACK of any push, ms. */
  max: number;
  /** Until every stream ACKed: the median over pushes of each push's slowest ACK, ms. */
  allAckedMs: number;
  /** The same for the very first push after the streams connected (a warm-up push), ms. */
  firstPushAllAckedMs: number;
  /** Median time for the server to accept the change (the bench API's HTTP round trip), ms. */
  acceptMs: number;
  serverCpuPerPush: number;
  loadgenCpuPerPush: number;
  /**
   * Responses of every type the streams received per push (each ACKed by the generator), from
   * the difference between consecutive pushes' triggers: NaN with fewer than two pushes.
   */
  responsesPerPush: number;
  /** The server's CPU per response sent, its ACK included, µs. */
  serverCpuPerResponseUs: number;
  /** Each push's p99, in order (shows a trend, e.g. behind a slow consumer). */
  p99s: number[];
  errors: number;
  errorSamples: string[];
}

const PUSH_TIMEOUT_MS = 60_000;

export interface PushOptions {
  /** Pushes made first and not counted (default: none). */
  warmups?: number;
  afterEach?: (reply: PushReply) => void;
}

/**
 * Warm-up pushes for a fleet of `streams`: V8 optimizes a function once it has run often
 * enough, so a small fleet needs more pushes to get there (at least 3, about 15,000
 * stream-pushes in all, at most 150). With 100 streams the mock's optimizing compiles land
 * around the 50th push and cost it 20–60 ms of CPU a push for a few pushes (the compiler's
 * threads count in the process's CPU): fewer warm-ups measured that instead of a push.
 */
export function warmupsFor(streams: number): number {
  return Math.min(150, Math.max(3, Math.ceil(15_000 / Math.max(1, streams))));
}

export async function runPushes(
  server: ServerProcess,
  loadgen: Loadgen,
  count: number,
  options: PushOptions = {},
): Promise<PushSeries> {
  const replies: PushReply[] = [];
  let serverCpu = 0;
  let loadgenCpu = 0;
  // Warm-up pushes first, not counted: the first pushes after connecting pay for compiling
  // the push path (V8's JIT tiers in the mock), which is not what a push costs once the
  // server has been running. The first one is reported on its own.
  const warmups: PushReply[] = [];
  for (let i = 0; i < (options.warmups ?? 0); i++) {
    const warmup = await loadgen.push(server.pushUrl, PUSH_TIMEOUT_MS);
    if (warmup.error) throw new Error(`push failed: ${warmup.error}`);
    warmups.push(warmup);
    await settle(server.pid);
  }
  for (let i = 0; i < count; i++) {
    const [s0, l0] = [server.cpuSeconds(), loadgen.cpuSeconds()];
    const reply = await loadgen.push(server.pushUrl, PUSH_TIMEOUT_MS);
    await settle(server.pid);
    serverCpu += server.cpuSeconds() - s0;
    loadgenCpu += loadgen.cpuSeconds() - l0;
    if (reply.error) throw new Error(`push failed: ${reply.error}`);
    replies.push(reply);
    options.afterEach?.(reply);
  }
  const last = replies[replies.length - 1];
  const first = replies[0];
  const responsesPerPush =
    count > 1 && first && last
      ? (last.responsesAtTrigger - first.responsesAtTrigger) / (count - 1)
      : Number.NaN;
  return {
    pushes: count,
    incomplete: replies.filter((r) => r.timedOut || r.acked < r.expected).length,
    streams: last?.expected ?? 0,
    p50: median(replies.map((r) => r.latency.p50 ?? Number.NaN)),
    p99: median(replies.map((r) => r.latency.p99 ?? Number.NaN)),
    max: Math.max(...replies.map((r) => r.latency.max ?? Number.NaN)),
    allAckedMs: median(replies.map((r) => r.latency.max ?? Number.NaN)),
    firstPushAllAckedMs: warmups[0]?.latency.max ?? Number.NaN,
    acceptMs: round(median(replies.map((r) => r.httpMs))),
    serverCpuPerPush: round(serverCpu / count, 4),
    loadgenCpuPerPush: round(loadgenCpu / count, 4),
    responsesPerPush: round(responsesPerPush, 1),
    serverCpuPerResponseUs: round(((serverCpu / count) * 1e6) / responsesPerPush, 1),
    p99s: replies.map((r) => r.latency.p99 ?? Number.NaN),
    errors: last?.errors.count ?? 0,
    errorSamples: last?.errors.samples ?? [],
  };
}
