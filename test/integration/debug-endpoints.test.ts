/**
 * istiod's debug endpoints on the control port, driven by the raw ADS test client playing
 * the proxy: each sync status (SYNCED, NOT SENT, STALE, ERROR) is produced by a real
 * request sequence and read back over HTTP, in istiod's JSON shapes and error texts.
 */
import { describe, expect } from 'vitest';
import { NO_PROXY_ID, PROXY_NOT_CONNECTED } from '../../src/control/debug-routes.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { handshake, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { test } from '../support/fixtures/test.js';

type Get = (path: string) => Promise<{ status: number; type: string; body: string }>;

/** GETs on the test's mock's control port: the answer, or its JSON (which must be a 200). */
const it = test.extend<{ get: Get; getJson: <T = unknown>(path: string) => Promise<T> }>({
  get: async ({ mock }, use) => {
    const port = mock.addresses.control?.port;
    await use(async (path) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return {
        status: res.status,
        type: res.headers.get('content-type') ?? '',
        body: await res.text(),
      };
    });
  },
  getJson: async ({ get }, use) => {
    await use(async <T>(path: string) => {
      const res = await get(path);
      expect(res.status, res.body).toBe(200);
      return JSON.parse(res.body) as T;
    });
  },
});

interface SyncStatus {
  proxy: string;
  cluster_id: string;
  proxy_type: string;
  istio_version: string;
  cluster_sent?: string;
  cluster_acked?: string;
  listener_sent?: string;
  listener_acked?: string;
  resources?: Record<
    string,
    { sent?: string; acked?: string; sentTime: string; lastError?: string }
  >;
}

describe('/debug/syncz', () => {
  it('shows SYNCED after the ACK and STALE while a response is unanswered, by nonce', async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    const { cds, lds } = await handshake(client.sotw());
    await server.waitForAck(CLUSTER_TYPE);
    const [status, ...others] = await getJson<SyncStatus[]>('/debug/syncz');
    expect(others).toEqual([]);
    expect(status).toMatchObject({
      cluster_id: 'Kubernetes',
      proxy: 'orders-v1-0.default',
      proxy_type: 'sidecar',
      istio_version: '1.24.0',
      cluster_sent: cds.nonce,
      cluster_acked: cds.nonce,
      listener_sent: lds.nonce,
    });
    // Go's omitempty: types never sent or acked have no field at all.
    expect(status).not.toHaveProperty('listener_acked');
    expect(status).not.toHaveProperty('route_sent');
    expect(status?.resources?.[CLUSTER_TYPE]).toMatchObject({ sent: cds.nonce, acked: cds.nonce });
    expect(status?.resources?.[LISTENER_TYPE]).toEqual({
      sent: lds.nonce,
      sentTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
  });

  it("shows ERROR with Envoy's message after a NACK, until the next ACK", async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    const stream = client.sotw();
    const { lds } = await handshake(stream);
    const message = "Error adding/updating listener(s) virtualInbound: route: unknown cluster 'x'";
    stream.send({
      type_url: LISTENER_TYPE,
      response_nonce: lds.nonce,
      error_detail: { code: 13, message },
    });
    await server.waitForNack(LISTENER_TYPE);
    const [status] = await getJson<SyncStatus[]>('/debug/syncz');
    expect(status?.resources?.[LISTENER_TYPE]).toMatchObject({
      sent: lds.nonce,
      lastError: message,
    });
    const streamz = await getJson<{ streams: { types: { type: string; status: string }[] }[] }>(
      '/debug/streamz',
    );
    expect(streamz.streams[0]?.types.map((t) => `${t.type} ${t.status}`)).toEqual([
      'CDS SYNCED',
      'LDS ERROR',
    ]);
  });

  describe('withheld', () => {
    it.override({ mockOptions: { withholdFirst: true } });

    it('shows NOT SENT while withheld, with the zero time istiod prints', async ({
      mock: server,
      ads: client,
      getJson,
    }) => {
      client.sotw().send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      await waitFor(() => server.streams().length === 1, { description: 'the stream to open' });
      const [status] = await getJson<SyncStatus[]>('/debug/syncz');
      expect(status).not.toHaveProperty('cluster_sent');
      expect(status?.resources).toEqual({ [CLUSTER_TYPE]: { sentTime: '0001-01-01T00:00:00Z' } });
      const streamz = await getJson<{
        withheld: boolean;
        streams: { types: { status: string }[] }[];
      }>('/debug/streamz');
      expect(streamz.withheld).toBe(true);
      expect(streamz.streams[0]?.types[0]?.status).toBe('NOT SENT');
    });
  });

  it('filters by ?namespace= and lists connections sorted by connection id', async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    client.sotw().send({ type_url: CLUSTER_TYPE, node: sidecarNode('a-0', 'shop') });
    client.sotw().send({ type_url: CLUSTER_TYPE, node: sidecarNode('b-0', 'default') });
    await waitFor(() => server.streams().length === 2, { description: 'two streams' });
    const shop = await getJson<SyncStatus[]>('/debug/syncz?namespace=shop');
    expect(shop.map((s) => s.proxy)).toEqual(['a-0.shop']);
    const connections = await getJson<{
      totalClients: number;
      clients: { connectionId: string; address: string }[];
    }>('/debug/connections');
    expect(connections.totalClients).toBe(2);
    expect(connections.clients.map((c) => c.connectionId).sort()).toEqual(
      connections.clients.map((c) => c.connectionId),
    );
    expect(connections.clients[0]?.address).toMatch(/127\.0\.0\.1:\d+$/);
  });
});

describe('/debug/connections and /debug/adsz', () => {
  it('have no clients field when nobody is connected (Go omitempty)', async ({ getJson }) => {
    expect(await getJson('/debug/connections')).toEqual({ totalClients: 0 });
    expect(await getJson('/debug/adsz')).toEqual({ totalClients: 0 });
  });

  it('adsz shows metadata and watches, filters by ?proxyID= and answers 404 for an unknown one', async ({
    mock: server,
    ads: client,
    get,
    getJson,
  }) => {
    await handshake(client.sotw());
    await waitFor(() => server.streams()[0]?.types.get(LISTENER_TYPE)?.sent);
    const adsz = await getJson<{ totalClients: number; clients: Record<string, unknown>[] }>(
      '/debug/adsz?proxyID=orders-v1-0',
    );
    expect(adsz.totalClients).toBe(1);
    expect(adsz.clients[0]).toMatchObject({
      connectionId: 'orders-v1-0.default-1',
      metadata: { CLUSTER_ID: 'Kubernetes', NAMESPACE: 'default', ISTIO_VERSION: '1.24.0' },
      watches: { [CLUSTER_TYPE]: [], [LISTENER_TYPE]: [] },
    });
    expect(await get('/debug/adsz?proxyID=nobody')).toMatchObject({
      status: 404,
      body: PROXY_NOT_CONNECTED,
    });
  });
});

describe('/debug/config_dump', () => {
  it("answers istiod's 400 without proxyID and 404 when the proxy is not connected", async ({
    get,
  }) => {
    expect(await get('/debug/config_dump')).toEqual({
      status: 400,
      type: 'text/plain; charset=utf-8',
      body: NO_PROXY_ID,
    });
    expect(await get('/debug/config_dump?proxyID=orders')).toMatchObject({
      status: 404,
      body: PROXY_NOT_CONNECTED,
    });
  });

  it('renders what the proxy was sent, as canonical JSON in config_dump sections', async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    const { cds, lds } = await handshake(client.sotw());
    await waitFor(() => server.streams()[0]?.types.get(LISTENER_TYPE)?.sent);
    const dump = await getJson<{ configs: Record<string, unknown>[] }>(
      '/debug/config_dump?proxyID=orders-v1-0.default',
    );
    expect(dump.configs.map((c) => c['@type'])).toEqual(
      [
        'BootstrapConfigDump',
        'ClustersConfigDump',
        'ListenersConfigDump',
        'ScopedRoutesConfigDump',
        'RoutesConfigDump',
        'SecretsConfigDump',
        'EcdsConfigDump',
      ].map((name) => `type.googleapis.com/envoy.admin.v3.${name}`),
    );
    const clusters = dump.configs[1] as {
      version_info: string;
      dynamic_active_clusters: { version_info: string; cluster: Record<string, unknown> }[];
    };
    expect(clusters.version_info).toBe(cds.version_info);
    const inbound = clusters.dynamic_active_clusters.find(
      (c) => c.cluster.name === 'inbound|8101||',
    );
    expect(inbound?.cluster).toMatchObject({
      '@type': CLUSTER_TYPE,
      type: 'STATIC',
      connect_timeout: expect.stringMatching(/s$/) as unknown,
    });
    const listeners = dump.configs[2] as {
      version_info: string;
      dynamic_listeners: {
        name: string;
        active_state: { listener: { traffic_direction?: string } };
      }[];
    };
    expect(listeners.version_info).toBe(lds.version_info);
    expect(listeners.dynamic_listeners.map((l) => l.name).sort()).toEqual([
      'virtualInbound',
      'virtualOutbound',
    ]);
    expect(
      listeners.dynamic_listeners.find((l) => l.name === 'virtualInbound')?.active_state.listener
        .traffic_direction,
    ).toBe('INBOUND');
  });

  it('shows the version sent, not a newer one not yet pushed, and ?types= gives bare resources', async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    const first = await requestClusters(client.sotw());
    await server.control.withhold();
    await server.control.setResources({ resources: [] });
    const typed = await getJson<{ configs: { '@type': string; name: string }[] }>(
      '/debug/config_dump?proxyID=orders&types=cds,lds',
    );
    expect(typed.configs.map((c) => c.name).sort()).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    expect(first.resources).toHaveLength(2);
  });

  it('indents the answer with ?pretty', async ({ get }) => {
    expect((await get('/debug/connections?pretty')).body).toBe('{\n  "totalClients": 0\n}\n');
  });
});

describe('/debug/journal', () => {
  it('filters by kind, type and node, and says which parameter is wrong', async ({
    mock: server,
    ads: client,
    get,
    getJson,
  }) => {
    const stream = client.sotw();
    const { lds } = await handshake(stream);
    stream.send({
      type_url: LISTENER_TYPE,
      response_nonce: lds.nonce,
      error_detail: { code: 13, message: 'bad' },
    });
    await server.waitForNack(LISTENER_TYPE);
    const acks = await getJson<{ kind: string; typeUrl: string }[]>('/debug/journal?kind=ACK,nack');
    expect(acks.map((e) => `${e.kind} ${e.typeUrl}`)).toEqual([
      `ack ${CLUSTER_TYPE}`,
      `nack ${LISTENER_TYPE}`,
    ]);
    const lds2 = await getJson<{ kind: string }[]>('/debug/journal?type=lds&node=*orders-v1-0*');
    expect(lds2.map((e) => e.kind)).toEqual(['subscribe', 'response', 'nack']);
    expect(await getJson('/debug/journal?node=nobody')).toEqual([]);
    // The node filter is a glob, as every node filter: a part of the id matches nothing alone,
    // the whole id matches exactly, and a glob longer than 1,024 characters is refused.
    expect(await getJson('/debug/journal?node=orders-v1-0')).toEqual([]);
    const id = sidecarNode().id;
    const byId = await getJson<{ nodeId: string }[]>(
      `/debug/journal?type=lds&node=${encodeURIComponent(id)}`,
    );
    expect(byId.map((e) => e.nodeId)).toEqual(lds2.map(() => id));
    expect((await get(`/debug/journal?node=${'*'.repeat(1025)}`)).status).toBe(400);
    const bad = await get('/debug/journal?kind=ack,nak&limit=0');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({
      error: expect.stringContaining(
        'invalid journal query: kind: expected any of open,',
      ) as unknown,
      problems: [
        { path: 'kind', message: expect.stringContaining('unknown "nak"') as unknown },
        { path: 'limit', message: 'expected an integer ≥ 1, found "0"' },
      ],
    });
  });
});

describe('/debug/list', () => {
  it('lists the debug commands', async ({ getJson }) => {
    expect(await getJson('/debug/list')).toEqual([
      'adsz',
      'config_dump',
      'connections',
      'journal',
      'journal/sinks',
      'resources',
      'streamz',
      'syncz',
    ]);
  });
});

describe('a delta stream', () => {
  it('shows in syncz, streamz and config_dump like a state-of-the-world one', async ({
    mock: server,
    ads: client,
    getJson,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await server.waitForAck(CLUSTER_TYPE);
    const [status] = await getJson<SyncStatus[]>('/debug/syncz');
    expect(status).toMatchObject({ cluster_sent: first.nonce, cluster_acked: first.nonce });
    const streamz = await getJson<{ streams: { protocol: string; types: { status: string }[] }[] }>(
      '/debug/streamz',
    );
    expect(streamz.streams[0]).toMatchObject({ protocol: 'delta', types: [{ status: 'SYNCED' }] });
    const typed = await getJson<{ configs: { name: string }[] }>(
      '/debug/config_dump?proxyID=orders&types=cds',
    );
    expect(typed.configs.map((c) => c.name).sort()).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    const metrics = await (
      await fetch(`http://127.0.0.1:${server.addresses.control?.port}/metrics`)
    ).text();
    expect(metrics).toContain('mock_istiod_streams{protocol="delta"} 1');
  });
});
