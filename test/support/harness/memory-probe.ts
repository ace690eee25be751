/**
 * Preloaded (`node --expose-gc --import tsx --import <this file>`) into a served mock so a
 * soak or an attack can observe it from outside over the IPC channel:
 * - on `'memory'` it collects garbage twice (when `--expose-gc` made `gc` available) and
 *   answers with `process.memoryUsage()`;
 * - on `'loop'` it answers with the event-loop delay seen since the last `'loop-reset'` (or
 *   since start), p99 and max in milliseconds; on `'loop-reset'` it starts a new window.
 * Nothing else changes in the process; the channel does not keep it alive.
 *
 * The delay is the mock's own: a timer every 10 ms measures how long each interval really
 * took, less the time the main thread waited to be run while it was ready to (its
 * `/proc/thread-self/schedstat` run-queue wait). On a shared machine the other test lane can
 * keep a ready process off the CPU for a tenth of a second; that is the machine's delay, not
 * the mock's. A stall of the mock's own making (work on the event loop, or waiting on another
 * thread) is counted whole. `grossMaxMs` is the interval as the clock saw it. Where there is
 * no schedstat (not Linux), the two are the same.
 */
import { readFileSync } from 'node:fs';
import { createHistogram, performance } from 'node:perf_hooks';

const collect = (globalThis as { gc?: () => void }).gc;
const TICK_MS = 10;
const NS_PER_MS = 1e6;

/** The main thread's run-queue wait so far, in ms (0 where the kernel does not say). */
function runQueueWaitMs(): number {
  try {
    const fields = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
    return Number(fields[1]) / NS_PER_MS || 0;
  } catch {
    return 0;
  }
}

const own = createHistogram();
let grossMaxMs = 0;
let lastAt = performance.now();
let lastWait = runQueueWaitMs();

function tick(): void {
  const now = performance.now();
  const wait = runQueueWaitMs();
  const interval = now - lastAt;
  grossMaxMs = Math.max(grossMaxMs, interval);
  // At least 1 ns: a histogram records positive integers.
  own.record(Math.max(1, Math.round((interval - (wait - lastWait)) * NS_PER_MS)));
  lastAt = now;
  lastWait = wait;
  setTimeout(tick, TICK_MS).unref();
}
setTimeout(tick, TICK_MS).unref();

process.on('message', (message: unknown) => {
  if (message === 'memory') {
    collect?.();
    collect?.();
    const usage = process.memoryUsage();
    process.send?.({
      kind: 'memory',
      collected: collect !== undefined,
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      external: usage.external,
    });
  } else if (message === 'loop') {
    process.send?.({
      kind: 'loop',
      p99Ms: own.count > 0 ? own.percentile(99) / NS_PER_MS : 0,
      maxMs: own.count > 0 ? own.max / NS_PER_MS : 0,
      grossMaxMs,
      samples: own.count,
    });
  } else if (message === 'loop-reset') {
    own.reset();
    grossMaxMs = 0;
    process.send?.({ kind: 'loop-reset' });
  }
});
process.channel?.unref();
