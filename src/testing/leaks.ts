/**
 * Leak checks for test suites: every mock istiod and Envoy the library starts is tracked
 * until it is closed and shown to be gone — no stream left on a closed mock, its xDS port
 * refusing connections, no Envoy process alive after `stop()`. `assertNoLeaks()` in an
 * `afterEach` fails the test that left one; `closeAll()` is the safety net that stops
 * whatever a failed test left behind.
 */
import { connectOutcome, processAlive } from '../util/liveness.js';

interface TrackedMock {
  kind: 'mock';
  name: string;
  closed: () => boolean;
  openStreams: () => number;
  xds: () => { host: string; port: number } | undefined;
  close: () => Promise<void>;
}

interface TrackedEnvoy {
  kind: 'envoy';
  pid: number;
  stopped: () => boolean;
  stop: () => Promise<unknown>;
}

type Tracked = TrackedMock | TrackedEnvoy;

/** Started and not yet closed or stopped. */
const open = new Set<Tracked>();
/** Checks running on things just closed, and what they found. */
const pending = new Set<Promise<void>>();
const found: string[] = [];

/**
 * @internal Called by startMockIstiod and startEnvoy; the returned function is called once
 * the mock is closed (or the Envoy stopped): it checks that nothing is left, in the
 * background, and stops tracking it, so long suites do not hold on to closed servers.
 */
export function track(item: Tracked): () => void {
  open.add(item);
  return () => {
    if (!open.delete(item)) return;
    const checked = check(item).then((problem) => {
      if (problem) found.push(problem);
    });
    pending.add(checked);
    void checked.finally(() => pending.delete(checked));
  };
}

async function check(item: TrackedMock | TrackedEnvoy): Promise<string | undefined> {
  if (item.kind === 'envoy') {
    if (!item.stopped()) return `Envoy (pid ${item.pid}) was started and never stopped`;
    return processAlive(item.pid)
      ? `Envoy (pid ${item.pid}) is still running after stop()`
      : undefined;
  }
  if (!item.closed()) return `${item.name} was started and never closed`;
  const streams = item.openStreams();
  if (streams > 0) return `${item.name}: ${streams} stream(s) still open after close()`;
  const xds = item.xds();
  if (xds && (await connectOutcome(xds)) !== 'refused') {
    return `${item.name}: the xDS port ${xds.port} still accepts connections after close()`;
  }
  return undefined;
}

/** What is left behind: one line per mock or Envoy not closed, or not really gone. */
export async function leaks(): Promise<string[]> {
  await Promise.all([...pending]);
  const now = found.splice(0);
  for (const item of open) {
    const problem = await check(item);
    if (problem) now.push(problem);
    else open.delete(item);
  }
  return now;
}

/** Throws, listing every leak, if anything started by the library is left. */
export async function assertNoLeaks(): Promise<void> {
  const found = await leaks();
  if (found.length > 0) throw new Error(`left behind by the test:\n  ${found.join('\n  ')}`);
}

/** Stops every Envoy, then closes every mock istiod, the library started and are still up. */
export async function closeAll(): Promise<void> {
  const items = [...open];
  for (const item of items) if (item.kind === 'envoy') await item.stop();
  for (const item of items) if (item.kind === 'mock') await item.close();
}
