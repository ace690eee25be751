/**
 * What clients choose is bounded (docs/RELIABILITY.md, "Limits"), end to end through the
 * mock's ports: `ISTIO_VERSION`s and node ids in `/metrics`, NACK texts in the journal, the
 * log, syncz and the live page, and the page's snapshot, which a page always gets.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import type { AdsTestStream } from '../../src/testing/ads-client.js';
import type { UiSnapshot } from '../../src/live/ui-events.js';
import { UI_SNAPSHOT_MAX_BYTES, UI_TEXT_MAX } from '../../src/live/ui-trim.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { SseReader } from '../support/fixtures/sse.js';
import { it } from '../support/fixtures/test.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';

const MiB = 1024 * 1024;
const cli = useCli();

const readers: SseReader[] = [];
afterEach(() => {
  for (const reader of readers.splice(0)) reader.close();
});

function base(server: TestMockIstiod): string {
  return `http://127.0.0.1:${server.addresses.control?.port}`;
}

async function get(server: TestMockIstiod, path: string): Promise<string> {
  const res = await fetch(`${base(server)}${path}`);
  expect(res.status).toBe(200);
  return res.text();
}

/** A sidecar's node whose `ISTIO_VERSION` is `version`, as pod `pod`. */
function nodeWith(pod: string, version: string) {
  const node = sidecarNode(pod);
  return { ...node, metadata: { ...node.metadata, ISTIO_VERSION: version } };
}

/** Sends `count` NACKs of CDS on `stream`, each `bytes` long, and waits for the journal. */
async function nack(server: TestMockIstiod, stream: AdsTestStream, count: number, bytes: number) {
  for (let i = 0; i < count; i++) {
    const message = `${String(i).padStart(2, '0')}${'x'.repeat(bytes - 2)}`;
    stream.send({
      type_url: CLUSTER_TYPE,
      response_nonce: 'n',
      error_detail: { code: 13, message },
    });
  }
  await waitFor(() => server.journal.query({ kind: 'nack' }).length === count, {
    description: `${count} NACKs in the journal`,
  });
}

const series = (text: string, metric: string) =>
  text.split('\n').filter((line) => line.startsWith(`${metric}{`));

describe('/metrics with label values clients choose', () => {
  it('20 streams with a 1 MiB ISTIO_VERSION leave /metrics small, open and after they close', async ({
    mock: server,
    ads,
  }) => {
    const before = (await get(server, '/metrics')).length;
    const streams = [];
    for (let i = 0; i < 20; i++) {
      const stream = ads.sotw();
      await requestClusters(stream, { node: nodeWith(`pod-${i}`, `${i}-${'v'.repeat(MiB)}`) });
      streams.push(stream);
    }
    const open = await get(server, '/metrics');
    expect(series(open, 'pilot_xds')).toHaveLength(20);
    expect(open).toContain(
      `pilot_xds{version="7-${'v'.repeat(254)}…[truncated, ${MiB + 2} bytes]"} 1`,
    );
    expect(open.length).toBeLessThan(before + 64 * 1024);

    for (const stream of streams) stream.close();
    await waitFor(() => server.streams().length === 0, { description: 'every stream closed' });
    const after = await get(server, '/metrics');
    // A version no proxy runs carries nothing: it goes, and gives its place back.
    expect(series(after, 'pilot_xds')).toEqual([]);
    expect(after.length).toBeLessThan(before + 16 * 1024);
  });

  it('shows at most metricSeriesMax label sets per metric, the rest as "other"', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ metricSeriesMax: 3 });
    const ads = connect(server);
    for (let i = 0; i < 5; i++) {
      const stream = ads.sotw();
      await requestClusters(stream, { node: nodeWith(`pod-${i}`, `1.${i}.0`) });
      stream.send({
        type_url: CLUSTER_TYPE,
        response_nonce: 'n',
        error_detail: { code: i + 1, message: 'no' },
      });
    }
    await waitFor(() => server.journal.query({ kind: 'nack' }).length === 5, {
      description: '5 NACKs',
    });
    const text = await get(server, '/metrics');
    expect(series(text, 'pilot_xds')).toEqual([
      'pilot_xds{version="1.0.0"} 1',
      'pilot_xds{version="1.1.0"} 1',
      'pilot_xds{version="1.2.0"} 1',
      'pilot_xds{version="other"} 2',
    ]);
    expect(series(text, 'pilot_xds_cds_reject')).toEqual([
      'pilot_xds_cds_reject{node="pod-0.default",err="Canceled"} 1',
      'pilot_xds_cds_reject{node="pod-1.default",err="Unknown"} 1',
      'pilot_xds_cds_reject{node="pod-2.default",err="InvalidArgument"} 1',
      'pilot_xds_cds_reject{node="other",err="other"} 2',
    ]);
  });
});

describe('NACK texts', () => {
  it('30 NACKs of 1 MiB leave /debug/journal small, the text cut with its length everywhere', async ({
    startMock,
    connect,
  }) => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const server = await startMock({ logger });
    const stream = connect(server).sotw();
    await requestClusters(stream);
    await nack(server, stream, 30, MiB);

    const journal = await get(server, '/debug/journal');
    expect(journal.length).toBeLessThan(MiB);
    const marker = `…[truncated, ${MiB} bytes]`;
    const kept = `29${'x'.repeat(4094)}${marker}`;
    const entries = JSON.parse(journal) as { errorDetail?: { message: string } }[];
    expect(entries.at(-1)?.errorDetail?.message).toBe(kept);
    const [status] = JSON.parse(await get(server, '/debug/syncz')) as {
      resources?: { lastError?: string }[];
    }[];
    expect(JSON.stringify(status)).toContain(JSON.stringify(kept));
    const logged = lines.filter((l) => l.includes('ACK ERROR'));
    expect(logged).toHaveLength(30);
    expect(Math.max(...logged.map((l) => l.length))).toBeLessThan(8 * 1024);
    expect(logged.at(-1)).toContain(marker);

    const page = await SseReader.open(`${base(server)}/ui/events`);
    readers.push(page);
    const snapshot = await page.next<UiSnapshot>('snapshot');
    const rows = snapshot.journal.filter((e) => e.kind === 'nack');
    expect(rows).toHaveLength(30);
    expect(rows.at(-1)?.errorDetail?.message).toBe(`29${'x'.repeat(UI_TEXT_MAX - 2)}${marker}`);
  });
});

describe('the journal', () => {
  it('holds at most journalMaxBytes: big stale nonces push the oldest entries out', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ journalMaxBytes: 4 * MiB });
    const stream = connect(server).sotw();
    await requestClusters(stream);
    for (let i = 0; i < 10; i++) {
      stream.send({ type_url: CLUSTER_TYPE, response_nonce: `${i}${'n'.repeat(MiB)}` });
    }
    await waitFor(() => server.journal.query({ kind: 'stale' }).at(-1)?.nonce?.startsWith('9'), {
      description: 'the last stale nonce in the journal',
    });
    const journal = await get(server, '/debug/journal');
    expect(journal.length).toBeLessThan(4 * MiB + 64 * 1024);
    const stale = (JSON.parse(journal) as { kind: string; nonce: string }[]).filter(
      (e) => e.kind === 'stale',
    );
    expect(stale.map((e) => e.nonce[0])).toEqual(['7', '8', '9']);
  });
});

describe('the live page', () => {
  it('a page gets a snapshot after NACKs bigger than its buffer limit, kept whole', async ({
    startMock,
    connect,
  }) => {
    // The journal keeps 2 MiB of each NACK here: only the page's own limits hold the snapshot.
    const server = await startMock({ nackTextMax: 2 * MiB });
    const stream = connect(server).sotw();
    await requestClusters(stream);
    await nack(server, stream, 30, MiB);

    for (let i = 0; i < 2; i++) {
      const page = await SseReader.open(`${base(server)}/ui/events`);
      readers.push(page);
      expect(page.status).toBe(200);
      const snapshot = await page.next<UiSnapshot>('snapshot');
      expect(snapshot.journal.filter((e) => e.kind === 'nack')).toHaveLength(30);
      expect(page.bytes).toBeLessThan(UI_SNAPSHOT_MAX_BYTES);
      page.close();
    }
  });
});

describe('serve flags', () => {
  it('--nack-text-max, --metric-series-max and --journal-max-bytes set the limits', async () => {
    const run = cli.start([
      'serve',
      ...FREE_SERVE_PORTS,
      ...JSON_LOGS,
      '--nack-text-max',
      '10',
      '--metric-series-max',
      '1',
      '--journal-max-bytes',
      '100000',
    ]);
    const serving = await waitForServing(run);
    const control = `http://127.0.0.1:${serving.control?.port}`;
    const client = new AdsTestClient(serving.xds);
    try {
      for (const version of ['1.0.0', '2.0.0']) {
        const stream = client.sotw();
        await requestClusters(stream, { node: nodeWith(`pod-${version}`, version) });
        stream.send({
          type_url: CLUSTER_TYPE,
          response_nonce: 'n',
          error_detail: { code: 13, message: 'x'.repeat(20) },
        });
      }
      const nacks = async () =>
        (await (await fetch(`${control}/debug/journal?kind=nack`)).json()) as {
          errorDetail: { message: string };
        }[];
      await waitFor(async () => (await nacks()).length === 2, { description: '2 NACKs' });
      expect((await nacks())[0]?.errorDetail.message).toBe(
        `${'x'.repeat(10)}…[truncated, 20 bytes]`,
      );
      const metrics = await (await fetch(`${control}/metrics`)).text();
      expect(series(metrics, 'pilot_xds')).toEqual([
        'pilot_xds{version="1.0.0"} 1',
        'pilot_xds{version="other"} 1',
      ]);
      // 100,000 bytes hold a few hundred small entries, not 1,000 stale ones.
      const stream = client.sotw();
      await requestClusters(stream);
      for (let i = 0; i < 1000; i++)
        stream.send({ type_url: CLUSTER_TYPE, response_nonce: `s${i}` });
      const last = async () =>
        (await (await fetch(`${control}/debug/journal?kind=stale`)).json()) as { nonce: string }[];
      await waitFor(async () => (await last()).at(-1)?.nonce === 's999', {
        description: 'the last stale request journaled',
      });
      expect((await last()).length).toBeLessThan(1000);
    } finally {
      client.close();
    }
  });
});
