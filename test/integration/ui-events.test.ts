/**
 * The live page's event stream (`GET /ui/events`) as a browser would read it: a snapshot,
 * then journal, proxy, state and fault events as a proxy connects and the control API
 * withholds, releases, takes the port down and up, and applies a fault.
 */
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import type {
  UiFault,
  UiFaultMarker,
  UiJournalEntry,
  UiProxy,
  UiServerState,
  UiSnapshot,
} from '../../src/live/ui-events.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { ack, handshake, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { SseReader } from '../support/fixtures/sse.js';
import { it } from '../support/fixtures/test.js';

const readers: SseReader[] = [];
afterEach(() => {
  for (const reader of readers.splice(0)) reader.close();
});

/** The base URL of `server`'s control API. */
function baseOf(server: TestMockIstiod): string {
  const control = server.addresses.control;
  if (!control) throw new Error('the control API is off');
  return `http://127.0.0.1:${control.port}`;
}

async function openPage(url: string, headers: Record<string, string> = {}) {
  const reader = await SseReader.open(url, headers);
  readers.push(reader);
  return reader;
}

const post = (url: string, body?: unknown) =>
  fetch(url, {
    method: 'POST',
    ...(body !== undefined && {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }),
  });

const cell = (row: UiProxy, type: string) => row.types.find((t) => t.type === type)?.status;

describe('GET /ui/events', () => {
  it('opens with a snapshot, then shows the exchange, the switches and the faults live', async ({
    mock: server,
    connect,
  }) => {
    const base = baseOf(server);
    const page = await openPage(`${base}/ui/events`);
    expect(page.status).toBe(200);
    expect(page.response.headers['content-type']).toMatch(/^text\/event-stream/);

    const snapshot = await page.next<UiSnapshot>('snapshot');
    expect(snapshot).toMatchObject({
      version: 3,
      lang: 'en',
      proxies: [],
      state: { withheld: false, serving: true },
      columns: ['CDS', 'LDS', 'EDS', 'RDS', 'ECDS'],
      addresses: { xds: server.xdsAddress },
    });
    expect(snapshot.catalogue.nacks.map((n) => n.name)).toContain('unknown-cluster');
    expect(snapshot.catalogue.scenarios).toContain('withhold');

    // A proxy: CDS asked (wildcard) and ACKed, LDS answered but not yet ACKed.
    const stream = connect(server).sotw();
    await handshake(stream, { node: sidecarNode('orders-v1-0') });
    const journal = await page.next<{ entries: UiJournalEntry[] }>('journal', (d) =>
      d.entries.some((e) => e.kind === 'ack'),
    );
    const subscribe = journal.entries.find((e) => e.kind === 'subscribe' && e.type === 'CDS');
    expect(subscribe).toMatchObject({ direction: 'request', names: '*' });
    expect(journal.entries.find((e) => e.kind === 'response')).toMatchObject({ type: 'CDS' });
    const rows = await page.next<UiProxy[]>('proxies', (d) =>
      d.some((r) => cell(r, 'LDS') === 'STALE'),
    );
    expect(rows[0]).toMatchObject({ name: 'orders-v1-0', namespace: 'default', ready: 'unknown' });
    expect(cell(rows[0] as UiProxy, 'CDS')).toBe('SYNCED');
    expect(cell(rows[0] as UiProxy, 'RDS')).toBe('IGNORED');

    // Withheld: a second proxy's request waits, its CDS is NOT SENT.
    expect((await post(`${base}/control/withhold`)).status).toBe(200);
    await page.next<UiServerState>('state', (s) => s.withheld);
    const held = connect(server).sotw();
    held.send({ type_url: CLUSTER_TYPE, node: sidecarNode('reviews-v1-0') });
    const waiting = await page.next<{ entries: UiJournalEntry[] }>('journal', (d) =>
      d.entries.some((e) => e.kind === 'subscribe' && e.nodeId?.includes('reviews') === true),
    );
    expect(waiting.entries.find((e) => e.kind === 'subscribe')?.waiting).toBe(true);
    await page.next<UiProxy[]>('proxies', (d) =>
      d.some((r) => r.name === 'reviews-v1-0' && cell(r, 'CDS') === 'NOT SENT'),
    );

    expect((await post(`${base}/control/release`)).status).toBe(200);
    await page.next<UiServerState>('state', (s) => !s.withheld);
    ack(held, await held.next());
    await page.next<UiProxy[]>('proxies', (d) =>
      d.some((r) => r.name === 'reviews-v1-0' && cell(r, 'CDS') === 'SYNCED'),
    );

    // A NACK fault: its marker and the fault list.
    const fault = await post(`${base}/control/faults`, {
      scenario: 'nack',
      params: { config: 'unknown-cluster' },
      id: 'bad-listener',
    });
    expect(fault.status).toBe(201);
    const marker = await page.next<UiFaultMarker>('fault', (m) => m.action === 'applied');
    expect(marker.fault).toMatchObject({ id: 'bad-listener', scenario: 'nack' });
    await page.next<UiFault[]>('faults', (list) => list.some((f) => f.id === 'bad-listener'));

    // Down: the streams end and their rows go; up again.
    expect((await post(`${base}/control/down`)).status).toBe(200);
    await page.next<UiServerState>('state', (s) => !s.serving);
    await page.next<{ connectionIds: string[] }>('proxy-gone', (d) => d.connectionIds.length > 0);
    expect((await post(`${base}/control/up`)).status).toBe(200);
    await page.next<UiServerState>('state', (s) => s.serving);
  });

  it('listens to the server only while a page is open', async ({ mock: server }) => {
    const base = baseOf(server);
    const clientsNow = async () =>
      (await (await fetch(`${base}/ui/clients`)).json()) as { listening: boolean };
    expect(await clientsNow()).toMatchObject({ listening: false });
    expect(server.events.listenerCount('state')).toBe(0);
    const page = await openPage(`${base}/ui/events`);
    await page.next('snapshot');
    expect(await clientsNow()).toMatchObject({ listening: true });
    expect(server.events.listenerCount('state')).toBe(1);
    page.close();
    await waitFor(async () => !(await clientsNow()).listening, {
      description: 'the hub to stop listening once the page closed',
    });
    expect(server.events.listenerCount('state')).toBe(0);
  });

  it('sends a snapshot holding what happened before the page opened, and the language', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ lang: 'ko' });
    const base = baseOf(server);
    const stream = connect(server).sotw();
    ack(stream, await requestClusters(stream));
    await server.waitForAck(CLUSTER_TYPE);
    const page = await openPage(`${base}/ui/events`);
    const snapshot = await page.next<UiSnapshot>('snapshot');
    expect(snapshot.lang).toBe('ko');
    expect(snapshot.proxies).toHaveLength(1);
    expect(cell(snapshot.proxies[0] as UiProxy, 'CDS')).toBe('SYNCED');
    expect(snapshot.journal.map((e) => e.kind)).toEqual(['open', 'subscribe', 'response', 'ack']);
  });
});

describe('the token', () => {
  it('is needed as a header or ?token= for the events, never for the page files', async ({
    startMock,
  }) => {
    const mock = await startMock({ controlToken: 's3cret' });
    const base = baseOf(mock);
    const none = await fetch(`${base}/ui/events`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: string }).error).toBe(
      'this control API needs "Authorization: Bearer <token>" or ?token=<token>',
    );
    expect((await fetch(`${base}/ui/events?token=wrong`)).status).toBe(401);
    expect((await fetch(`${base}/ui/events?token=s3cre`)).status).toBe(401);

    const byQuery = await openPage(`${base}/ui/events?token=s3cret`);
    expect(byQuery.status).toBe(200);
    await byQuery.next('snapshot');
    const byHeader = await openPage(`${base}/ui/events`, { authorization: 'Bearer s3cret' });
    await byHeader.next('snapshot');

    // ?token= is for the event stream only: the rest of the API wants the header.
    expect((await fetch(`${base}/control/state?token=s3cret`)).status).toBe(401);
    expect((await fetch(`${base}/ui/admins?token=s3cret`)).status).toBe(401);
    // The page's files hold no data: served (or "not built") without a token.
    expect([200, 503]).toContain((await fetch(`${base}/ui/`)).status);
    const redirect = await fetch(`${base}/ui?token=s3cret`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/ui/?token=s3cret');
  });
});

describe('POST /ui/admins', () => {
  it('adds an admin API to poll, refuses what is not host:port, and removes it again', async ({
    mock,
  }) => {
    const base = baseOf(mock);
    const bad = await post(`${base}/ui/admins`, { address: 'not a host', extra: 1 });
    expect(bad.status).toBe(400);
    const problems = ((await bad.json()) as { problems: { path: string }[] }).problems;
    expect(problems.map((p) => p.path)).toEqual(['extra']);
    const badAddress = await post(`${base}/ui/admins`, { address: 'http://x/y' });
    expect(((await badAddress.json()) as { error: string }).error).toMatch(
      /^invalid admin address: address: expected host:port/,
    );

    // Nothing listens there: the page sees it unreachable, and the poll does not hang.
    const added = await post(`${base}/ui/admins`, { address: '127.0.0.1:9' });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({
      admin: { admin: 'http://127.0.0.1:9', source: 'user', reachable: false },
    });
    const page = await openPage(`${base}/ui/events`);
    await page.next<{ admins: unknown }>('snapshot');
    const admins = await page.next<{ admin: string; error?: string }[]>('admins', (list) =>
      list.some((a) => a.error !== undefined),
    );
    expect(admins[0]).toMatchObject({ admin: 'http://127.0.0.1:9', reachable: false });

    const removed = await fetch(`${base}/ui/admins/${encodeURIComponent('127.0.0.1:9')}`, {
      method: 'DELETE',
    });
    expect(await removed.json()).toEqual({ admins: [] });
    const again = await fetch(`${base}/ui/admins/127.0.0.1%3A9`, { method: 'DELETE' });
    expect(again.status).toBe(404);
  });
});

describe('a NACK', () => {
  it("reaches the page with Envoy's error text, and the type turns ERROR", async ({
    mock: server,
    connect,
  }) => {
    const base = baseOf(server);
    const page = await openPage(`${base}/ui/events`);
    await page.next('snapshot');
    const stream = connect(server).sotw();
    const { lds } = await handshake(stream);
    const message = "Error adding/updating listener(s) bad: route: unknown cluster 'nowhere'";
    stream.send({
      type_url: lds.type_url,
      version_info: '',
      response_nonce: lds.nonce,
      error_detail: { code: 3, message },
    });
    const journal = await page.next<{ entries: UiJournalEntry[] }>('journal', (d) =>
      d.entries.some((e) => e.kind === 'nack'),
    );
    expect(journal.entries.find((e) => e.kind === 'nack')).toMatchObject({
      direction: 'request',
      type: 'LDS',
      nonce: lds.nonce,
      errorDetail: { code: 3, message },
    });
    const [row] = await page.next<UiProxy[]>('proxies', (d) =>
      d.some((r) => cell(r, 'LDS') === 'ERROR'),
    );
    expect(row?.types.find((t) => t.type === 'LDS')?.nack).toMatchObject({
      version: lds.version_info,
      message,
    });
  });
});

describe('polling an Envoy that hangs', () => {
  it('keeps at most one poll open per admin API, each with a deadline', async ({ mock }) => {
    // Accepts connections and never answers, like a stopped (SIGSTOP) Envoy.
    const open = new Set<Socket>();
    let accepted = 0;
    let most = 0;
    const hanging = createServer((socket) => {
      accepted += 1;
      open.add(socket);
      most = Math.max(most, open.size);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
      socket.resume(); // reads the request (and the client's close), answers nothing
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const port = (hanging.address() as { port: number }).port;
      const base = baseOf(mock);
      const page = await openPage(`${base}/ui/events`);
      await page.next('snapshot');
      expect((await post(`${base}/ui/admins`, { address: `127.0.0.1:${port}` })).status).toBe(201);
      const admins = await page.next<{ error?: string }[]>('admins', (list) =>
        list.some((a) => a.error === 'no answer in time'),
      );
      expect(admins).toHaveLength(1);
      // A few more rounds: each poll (three requests) ends at its deadline before the next.
      await waitFor(() => accepted >= 9, { timeoutMs: 10_000, description: 'three polls' });
      expect(most).toBeLessThanOrEqual(3);
    } finally {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });
});
