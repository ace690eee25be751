/**
 * A live page that stops reading (a frozen tab, a laptop lid closed) must not slow the xDS
 * side nor grow the mock's memory: its events are dropped while its socket does not drain,
 * and it gets a `gap` and a fresh snapshot when it reads again. Meanwhile another page keeps
 * getting every event.
 */
import { expect } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import type { AdsTestStream } from '../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import type { UiJournalEntry, UiProxy, UiSnapshot } from '../../src/live/ui-events.js';
import type { UiClientInfo } from '../../src/live/ui-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { SseReader } from '../support/fixtures/sse.js';
import { it } from '../support/fixtures/test.js';

const STREAMS = 60;

function clusters(generation: number) {
  return Array.from({ length: 5 }, (_, i) =>
    makeStaticCluster({
      name: `c${i}`,
      endpoints: [{ address: `10.0.${generation % 250}.${i}`, port: 8000 }],
    }),
  );
}

/** A proxy that ACKs every response, until its stream ends. */
async function ackForever(stream: AdsTestStream): Promise<void> {
  for (;;) {
    const response = await stream.next(60_000).catch(() => undefined);
    if (!response) return;
    ack(stream, response);
  }
}

/** Milliseconds from a new resource set until every stream ACKed its CDS version. */
async function push(mock: TestMockIstiod, generation: number): Promise<number> {
  const started = performance.now();
  // A refusal throws CONTROL_REFUSED.
  await mock.control.setResources({ resources: clusters(generation) });
  const version = mock.snapshot().get(CLUSTER_TYPE).version;
  await waitFor(
    () =>
      mock.streams().every((s) => s.types.get(CLUSTER_TYPE)?.acked?.version === version) &&
      mock.streams().length === STREAMS,
    { intervalMs: 2, timeoutMs: 20_000, description: `every stream to ACK ${version}` },
  );
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function pageClients(base: string): Promise<UiClientInfo[]> {
  const body = (await (await fetch(`${base}/ui/clients`)).json()) as { clients: UiClientInfo[] };
  return body.clients;
}

it('drops events for a page that stops reading, keeps its buffer bounded, and never slows a push', async ({
  startMock,
  connect,
  onTestFinished,
}) => {
  // 60 streams opened back to back: istiod's connection rate limit would only slow them.
  const mock = await startMock({ resources: clusters(0), maxStreamsPerSecond: 0 });
  const base = `http://127.0.0.1:${mock.addresses.control?.port}`;
  const client = connect(mock);
  for (let i = 0; i < STREAMS; i++) {
    const stream = client.sotw();
    ack(stream, await requestClusters(stream, { node: sidecarNode(`pod-${i}`) }));
    void ackForever(stream);
  }
  let generation = 1;
  const without: number[] = [];
  for (let i = 0; i < 5; i++) without.push(await push(mock, generation++));

  const stuck = await SseReader.open(`${base}/ui/events`);
  onTestFinished(() => stuck.close());
  await stuck.next('snapshot');
  stuck.pause();
  const reading = await SseReader.open(`${base}/ui/events`);
  onTestFinished(() => reading.close());
  await reading.next('snapshot');

  // Enough pushes to fill the stuck page's socket buffers and then the mock's.
  await waitFor(
    async () => {
      await push(mock, generation++);
      const info = (await pageClients(base)).find((c) => c.behind);
      return info !== undefined;
    },
    { timeoutMs: 60_000, intervalMs: 1, description: 'the stuck page to fall behind' },
  );
  const withStuck: number[] = [];
  for (let i = 0; i < 5; i++) withStuck.push(await push(mock, generation++));

  const [behind] = (await pageClients(base)).filter((c) => c.behind);
  expect(behind?.dropped).toBeGreaterThan(0);
  // Soft limit (256 KiB) plus at most one frame (60 rows or a journal batch, well under 1 MiB).
  expect(behind?.bufferedBytes).toBeLessThan(1024 * 1024);

  // The reading page saw the last push: the rows, and the newest journal entries.
  const version = mock.snapshot().get(CLUSTER_TYPE).version;
  // (A batch sends its journal entries before its rows.)
  await reading.next<{ entries: UiJournalEntry[] }>('journal', (d) =>
    d.entries.some((e) => e.kind === 'ack' && e.version === version),
  );
  await reading.next<UiProxy[]>('proxies', (rows) =>
    rows.some((r) => r.types.find((t) => t.type === 'CDS')?.ackedVersion === version),
  );

  const a = median(without);
  const b = median(withStuck);
  console.log(
    `push to ${STREAMS} streams, all ACKed (median of 5): no page ${a.toFixed(1)} ms, ` +
      `one stuck page + one reading ${b.toFixed(1)} ms (×${(b / a).toFixed(2)})`,
  );
  // Bounded: a generous margin for a loaded machine; the figure above is the measurement.
  expect(b).toBeLessThan(a * 3 + 100);

  // Reading again, it is told of the gap and gets the present state.
  stuck.resume();
  const gap = await stuck.next<{ dropped: number }>('gap');
  expect(gap.dropped).toBeGreaterThan(0);
  const fresh = await stuck.next<UiSnapshot>('snapshot');
  expect(fresh.proxies).toHaveLength(STREAMS);
}, 120_000);
