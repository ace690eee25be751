/**
 * The bench servers' CPU profile endpoint (`POST /bench/profile/start?intervalUs=…`, then
 * `POST /bench/profile/stop?file=<path>`): what happens in between, written as a
 * `.cpuprofile` file. The mock's bench entry and the floors answer it alike.
 *
 * With `start?alloc=1` it records allocations instead (V8's sampling heap profiler, one sample
 * per `intervalBytes`, default 4 KiB): every sampled allocation, those the GC has since
 * collected included, written as a `.heapprofile` (bench/micro/alloc-top.ts reads it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

let profiler: Session | undefined;
let allocations = false;

export async function cpuProfile(url: URL): Promise<unknown> {
  if (url.pathname.endsWith('/start')) {
    profiler = new Session();
    profiler.connect();
    allocations = url.searchParams.get('alloc') === '1';
    if (allocations) {
      const samplingInterval = Number(url.searchParams.get('intervalBytes') ?? 4096) || 4096;
      await profiler.post('HeapProfiler.enable');
      await profiler.post('HeapProfiler.startSampling', {
        samplingInterval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return { profiling: 'allocations' };
    }
    await profiler.post('Profiler.enable');
    const interval = Number(url.searchParams.get('intervalUs') ?? 1000) || 1000;
    await profiler.post('Profiler.setSamplingInterval', { interval });
    await profiler.post('Profiler.start');
    return { profiling: true };
  }
  const file = url.searchParams.get('file');
  if (!profiler || !file) throw new Error('POST /bench/profile/start first, then stop?file=<path>');
  const { profile: result } = allocations
    ? await profiler.post('HeapProfiler.stopSampling')
    : await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(file, JSON.stringify(result));
  return { file };
}
