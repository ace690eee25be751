/**
 * Preloaded (`node --expose-gc --import tsx --import <this file>`) into a served mock so a
 * soak or an attack can observe it from outside over the IPC channel:
 * - on `'memory'` it collects garbage twice (when `--expose-gc` made `gc` available) and
 *   answers with `process.memoryUsage()`;
 * - on `'loop'` it answers with the event-loop delay seen since the last `'loop-reset'` (or
 *   since start): p99 and max in milliseconds, from `monitorEventLoopDelay` at a 10 ms
 *   resolution; on `'loop-reset'` it starts a new window.
 * Nothing else changes in the process; the channel does not keep it alive.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const collect = (globalThis as { gc?: () => void }).gc;
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

const NS_PER_MS = 1e6;

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
      p99Ms: loop.percentile(99) / NS_PER_MS,
      maxMs: loop.max / NS_PER_MS,
      samples: loop.count,
    });
  } else if (message === 'loop-reset') {
    loop.reset();
    process.send?.({ kind: 'loop-reset' });
  }
});
process.channel?.unref();
