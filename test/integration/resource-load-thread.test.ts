/**
 * A reload reads, parses and validates the resource files on a thread of its own
 * (src/resources/file-thread.ts): a large legitimate file, which takes the parser seconds, is
 * loaded and served while the served process's event loop stays free, as is a 1 MiB body of
 * resources through the control API; the thread is kept for
 * the next load and ends once idle; a load that needs more heap than it may have is refused
 * and the thread replaced; a load past its deadline is stopped with its thread; a load
 * stopped by closing ends at once; reloads asked for while one
 * runs wait for it and share one more.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { LoadingThread } from '../../src/resources/file-thread.js';
import type { ValidatedFiles } from '../../src/resources/file-source.js';
import type { Result } from '../../src/util/problems.js';
import { waitFor } from '../../src/util/wait.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { clustersYaml } from '../support/harness/file-churn.js';
import { startServedProcess, type ServedProcess } from '../support/harness/served-process.js';
import { it } from '../support/fixtures/test.js';

/** The event-loop bound of the hardening issue (test/adversarial/support/verify.ts). */
const MAX_LOOP_DELAY_MS = 100;
/** About 1 MB of YAML: the parser alone takes most of a second over it, or more. */
const LARGE = 8_000;

let dir: string | undefined;
let served: ServedProcess | undefined;
const loaders: LoadingThread[] = [];
const track = (loader: LoadingThread) => (loaders.push(loader), loader);
afterEach(async () => {
  for (const loader of loaders.splice(0)) loader.close();
  await served?.stop();
  served = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** The number of clusters in each set a load made, or the problems it answered. */
function clusterCounts(loaded: Result<ValidatedFiles>): unknown {
  return loaded.ok ? loaded.value.sets.map((s) => s.packed.get(CLUSTER_TYPE)?.size) : loaded;
}

async function clustersServed(xds: string): Promise<number> {
  const client = new AdsTestClient(xds);
  try {
    const answer = await requestClusters(client.sotw());
    expect(answer.type_url).toBe(CLUSTER_TYPE);
    return answer.resources.length;
  } finally {
    client.close();
  }
}

it(
  'a large legitimate file is loaded off the event loop and then served',
  { timeout: 120_000 },
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
    const file = join(dir, 'clusters.yaml');
    writeFileSync(file, clustersYaml(['good']));
    served = await startServedProcess(['--resources', dir, '--resources-quiet', '60s']);
    expect(await clustersServed(served.xdsAddress)).toBe(1);

    writeFileSync(file, clustersYaml(names(LARGE, 'large')));
    await served.resetLoopDelay();
    const started = performance.now();
    const reload = await fetch(`${served.controlUrl}/control/resources/reload`, { method: 'POST' });
    const tookMs = performance.now() - started;
    expect(reload.status, await reload.clone().text()).toBe(200);
    const loop = await served.loopDelay();
    expect(await clustersServed(served.xdsAddress)).toBe(LARGE);
    expect(loop.maxMs, `event-loop delay max while ${tookMs.toFixed(0)} ms loading`).toBeLessThan(
      MAX_LOOP_DELAY_MS,
    );
  },
);

/** A cluster as the control API takes it: about 40 JSON values, 300 bytes. */
const clusterJson = (name: string, timeout = '1s') => ({
  '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  name,
  type: 'STATIC',
  connect_timeout: timeout,
  load_assignment: {
    cluster_name: name,
    endpoints: [
      {
        lb_endpoints: [
          { endpoint: { address: { socket_address: { address: '10.0.0.1', port_value: 8080 } } } },
        ],
      },
    ],
  },
});

/** The event-loop delay of the window, once the probe has sampled past what was just done. */
async function loopAfter(process: ServedProcess): Promise<{ maxMs: number }> {
  const seen = (await process.loopDelay()).samples;
  return waitFor(
    async () => {
      const loop = await process.loopDelay();
      return loop.samples >= seen + 3 && loop;
    },
    { timeoutMs: 10_000, description: 'the event-loop probe to sample again' },
  );
}

it(
  'a 1 MiB body of resources through PUT /control/resources is validated off the event loop',
  { timeout: 120_000 },
  async () => {
    served = await startServedProcess([]);
    const put = (body: unknown) =>
      fetch(`${served?.controlUrl}/control/resources`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const large = names(3_500, 'large').map((name) => clusterJson(name));
    expect(JSON.stringify({ resources: large }).length).toBeGreaterThan(1_000_000);
    // Twice: the first starts the thread, the second is a warm one.
    for (const timeout of ['1s', '2s']) {
      await served.resetLoopDelay();
      const answer = await put({
        resources: large.map((c) => ({ ...c, connect_timeout: timeout })),
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      const loop = await loopAfter(served);
      expect(loop.maxMs, `event-loop delay max, timeout ${timeout}`).toBeLessThan(
        MAX_LOOP_DELAY_MS,
      );
    }
    expect(await clustersServed(served.xdsAddress)).toBe(3_500);

    // A large bad body: every problem with its field path; the last good set keeps serving.
    const bad = large.map((c, i) => (i === 3_000 ? { ...c, type: 'NOT_A_TYPE' } : c));
    const refused = await put({ resources: bad });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { problems: { path: string }[] };
    expect(body.problems.map((p) => p.path)).toEqual(['resources[3000].type']);
    expect(await clustersServed(served.xdsAddress)).toBe(3_500);
  },
);

it('a large change and a small one asked for in that order install in that order', async ({
  startMock,
}) => {
  // In one process: over HTTP, the order two requests are asked in is the order their bodies
  // arrive, and a small body arrives first.
  const mock = await startMock({});
  const large = names(3_500, 'large').map((name) => clusterJson(name));
  const first = mock.control.setResources({ resources: large });
  const second = mock.control.setResources({ resources: [clusterJson('small')] });
  expect((await first).changed).toContain('CDS');
  expect((await second).changed).toContain('CDS');
  expect(await clustersServed(mock.xdsAddress)).toBe(1);
});

it('a load that needs more heap than it may have is refused, naming the path; the next load gets a new thread', async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
  const file = join(dir, 'clusters.yaml');
  writeFileSync(file, clustersYaml(names(LARGE, 'large')));
  const loader = track(new LoadingThread({ heapMb: 16 }));
  const loaded = await loader.load(dir);
  expect(loaded).toEqual({
    ok: false,
    problems: [
      {
        path: dir,
        message: 'too large to load: it needed more than the 16 MiB of heap a load may use',
      },
    ],
  });
  writeFileSync(file, clustersYaml(['one']));
  expect(clusterCounts(await loader.load(dir))).toEqual([1]);
});

it('the thread is kept for the next load, and ends once idle', async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
  const file = join(dir, 'clusters.yaml');
  writeFileSync(file, clustersYaml(['one']));
  const loader = track(new LoadingThread({ idleMs: 300 }));
  expect(loader.threadId).toBeUndefined();
  expect(clusterCounts(await loader.load(dir))).toEqual([1]);
  const first = loader.threadId;
  expect(first).toBeGreaterThan(0);
  writeFileSync(file, clustersYaml(names(2, 'two')));
  expect(clusterCounts(await loader.load(dir))).toEqual([2]);
  expect(loader.threadId).toBe(first);
  await waitFor(() => loader.threadId === undefined, {
    timeoutMs: 10_000,
    description: 'the idle loading thread to end',
  });
  expect(clusterCounts(await loader.load(dir))).toEqual([2]);
  expect(loader.threadId).not.toBe(first);
});

it('a load past its deadline is stopped with its thread, naming the path', async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
  writeFileSync(join(dir, 'clusters.yaml'), clustersYaml(names(LARGE, 'large')));
  // The parser takes most of a second over this file: far past 50 ms.
  const loader = track(new LoadingThread({ deadlineMs: 50 }));
  expect(await loader.load(dir)).toEqual({
    ok: false,
    problems: [
      { path: dir, message: 'not loaded: the load took longer than 0.05 s, and was stopped' },
    ],
  });
  expect(loader.threadId).toBeUndefined();
});

it('resources that cannot be handed to the thread are refused, and the thread stays usable', async () => {
  const loader = track(new LoadingThread());
  const answer = await loader.validateSet({ name: 'default', resources: [() => 1] });
  const problems = answer.ok ? [] : answer.problems;
  expect(problems.map((p) => p.path)).toEqual(['resources']);
  expect(problems[0]?.message).toMatch(/^cannot be validated: .*could not be cloned/);
  const good = await loader.validateSet({
    name: 'default',
    resources: [clusterJson('after')],
  });
  expect(good.ok && good.value.packed.get(CLUSTER_TYPE)?.size).toBe(1);
});

it('a load stopped by closing ends at once, loading nothing', async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
  writeFileSync(join(dir, 'clusters.yaml'), clustersYaml(names(LARGE, 'large')));
  const loader = track(new LoadingThread());
  const loading = loader.load(dir);
  loader.close();
  const closing = {
    ok: false,
    problems: [{ path: dir, message: 'not loaded: the server is closing' }],
  };
  expect(await loading).toEqual(closing);
  expect(await loader.load(dir)).toEqual(closing);
  expect(loader.threadId).toBeUndefined();
});

it('reloads asked for while one runs are done once after it, all answered', async ({
  startMock,
}) => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-load-thread-'));
  const file = join(dir, 'clusters.yaml');
  writeFileSync(file, clustersYaml(['good']));
  const mock = await startMock({ resourcesPath: file, watchResources: false });
  let loads = 0;
  mock.events.on('resources-reloaded', () => (loads += 1));
  writeFileSync(file, clustersYaml(names(3, 'changed')));
  // In one turn: the first starts a load; the other four wait for it, then share one more.
  const [first, ...later] = [1, 2, 3, 4, 5].map(() => mock.control.reloadResources());
  expect(await first).toEqual({ changed: [{ set: 'default', changed: ['CDS'] }] });
  // The second load read the same files: nothing changed.
  for (const answer of await Promise.all(later)) {
    expect(answer).toEqual({ changed: [] });
  }
  expect(loads).toBe(2);
});
