/**
 * Preloaded (`node --expose-gc --import tsx --import <this file>`) into a served mock so a
 * soak can sample its memory over the IPC channel: on `'memory'` it collects garbage twice
 * (when `--expose-gc` made `gc` available) and answers with `process.memoryUsage()`.
 * Nothing else changes in the process; the channel does not keep it alive.
 */
const collect = (globalThis as { gc?: () => void }).gc;

process.on('message', (message: unknown) => {
  if (message !== 'memory') return;
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
});
process.channel?.unref();
