/**
 * The bench servers' CPU profile endpoint (`POST /bench/profile/start?intervalUs=…`, then
 * `POST /bench/profile/stop?file=<path>`): what happens in between, written as a
 * `.cpuprofile` file. The mock's bench entry and the floors answer it alike.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

let profiler: Session | undefined;

export async function cpuProfile(url: URL): Promise<unknown> {
  if (url.pathname.endsWith('/start')) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    const interval = Number(url.searchParams.get('intervalUs') ?? 1000) || 1000;
    await profiler.post('Profiler.setSamplingInterval', { interval });
    await profiler.post('Profiler.start');
    return { profiling: true };
  }
  const file = url.searchParams.get('file');
  if (!profiler || !file) throw new Error('POST /bench/profile/start first, then stop?file=<path>');
  const { profile: result } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(file, JSON.stringify(result));
  return { file };
}
