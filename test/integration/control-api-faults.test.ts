/**
 * Every fault and resource endpoint of the control API, good input and bad, driven over
 * HTTP, with the raw ADS test client playing the proxy to see each endpoint's effect.
 */
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { AdsTestClient, type AdsTestStream } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { useMockIstiod } from '../support/mock-fixture.js';
import { sidecarNode } from '../support/fixtures/nodes.js';

const mock = useMockIstiod();
const setup = mock.setup;

// Answers are arbitrary JSON, read loosely by the assertions below.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const port = mock.server?.addresses.control?.port;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A proxy stream that has received (and ACKed) its clusters. */
async function proxyWithClusters(c: AdsTestClient, pod = 'orders-v1-0'): Promise<AdsTestStream> {
  const stream = c.sotw();
  ack(stream, await requestClusters(stream, { node: sidecarNode(pod) }));
  return stream;
}

describe('GET /control/scenarios', () => {
  it('lists every scenario with the JSON Schema of its parameters', async () => {
    await setup();
    const { status, body } = await call('GET', '/control/scenarios');
    expect(status).toBe(200);
    const names = (body.scenarios as Json[]).map((s) => s.name);
    expect(names).toEqual([
      'withhold',
      'partial',
      'delay',
      'nack',
      'reset',
      'down',
      'flap',
      'stale',
    ]);
    const delay = (body.scenarios as Json[]).find((s) => s.name === 'delay');
    expect(delay).toMatchObject({
      scope: ['node', 'types'],
      params: { type: 'object', required: ['ms'], additionalProperties: false },
    });
    expect(delay?.params.properties.seed).toMatchObject({ type: 'integer', default: 1 });
  });

  it('describes one scenario (nack lists its catalogue), 404 with the valid names otherwise', async () => {
    await setup();
    const nack = await call('GET', '/control/scenarios/nack');
    expect(nack.status).toBe(200);
    expect((nack.body.configs as Json[]).map((c) => c.name)).toContain('unknown-cluster');
    const missing = await call('GET', '/control/scenarios/explode');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe(
      'unknown scenario "explode"; valid scenarios: withhold, partial, delay, nack, reset, down, flap, stale',
    );
    expect(missing.body.scenarios).toHaveLength(8);
  });
});

describe('/control/faults', () => {
  it('applies, lists, shows and removes a fault; held responses go out on removal', async () => {
    const { client } = await setup();
    const applied = await call('POST', '/control/faults', {
      scenario: 'withhold',
      id: 'hold-lds',
      scope: { types: ['LDS'] },
    });
    expect(applied.status).toBe(201);
    expect(applied.body.fault).toMatchObject({
      id: 'hold-lds',
      state: 'active',
      scope: { types: ['LDS'] },
    });
    const stream = await proxyWithClusters(client);
    stream.send({ type_url: LISTENER_TYPE });
    await mock.server!.expectNoResponse('LDS', 300);

    const listed = await call('GET', '/control/faults');
    expect(listed.body.faults).toHaveLength(1);
    expect(listed.body.faults[0].counts.held).toBeGreaterThan(0);
    expect((await call('GET', '/control/faults/hold-lds')).body.fault.id).toBe('hold-lds');

    const removed = await call('DELETE', '/control/faults/hold-lds');
    expect(removed).toMatchObject({ status: 200, body: { removed: { id: 'hold-lds' } } });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    expect((await call('GET', '/control/faults')).body.faults).toEqual([]);
  });

  it('answers 400 listing every problem with its path, and applies nothing', async () => {
    await setup();
    const bad = await call('POST', '/control/faults', {
      scenario: 'delay',
      params: { ms: 'soon', extra: 1 },
      scope: { types: ['LDS', 'XDS'], node: 7 },
      trigger: { after: '5s', afterResponses: 2 },
      colour: 'red',
    });
    expect(bad.status).toBe(400);
    const paths = (bad.body.problems as Json[]).map((p) => p.path).sort();
    expect(paths).toEqual([
      'colour',
      'params.extra',
      'params.ms',
      'scope.node',
      'scope.types[1]',
      'trigger',
    ]);
    expect(bad.body.error).toMatch(/^invalid fault: /);
    expect((await call('GET', '/control/faults')).body.faults).toEqual([]);
  });

  it('answers 404 for an unknown scenario, 400 for a missing one, a duplicate id, or a non-JSON body', async () => {
    await setup();
    const unknown = await call('POST', '/control/faults', { scenario: 'explode' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.scenarios).toContain('withhold');
    const missing = await call('POST', '/control/faults', { params: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.problems[0]).toMatchObject({ path: 'scenario' });
    expect(
      (await call('POST', '/control/faults', { scenario: 'delay', params: { ms: 5 }, id: 'a' }))
        .status,
    ).toBe(201);
    const twice = await call('POST', '/control/faults', {
      scenario: 'delay',
      params: { ms: 5 },
      id: 'a',
    });
    expect(twice).toMatchObject({ status: 400, body: { problems: [{ path: 'id' }] } });
    const notJson = await call('POST', '/control/faults', '{nope');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/not valid JSON/);
  });

  it('answers 404 for an unknown fault id, and DELETE /control/faults removes them all', async () => {
    await setup();
    expect((await call('GET', '/control/faults/none')).status).toBe(404);
    expect((await call('DELETE', '/control/faults/none')).status).toBe(404);
    await call('POST', '/control/faults', { scenario: 'withhold' });
    await call('POST', '/control/faults', { scenario: 'delay', params: { ms: '1s' } });
    const cleared = await call('DELETE', '/control/faults');
    expect((cleared.body.removed as Json[]).map((f) => f.scenario).sort()).toEqual([
      'delay',
      'withhold',
    ]);
  });

  it('POST /control/release removes holding faults and lets their responses go', async () => {
    const { client } = await setup();
    await call('POST', '/control/faults', { scenario: 'partial', params: { answer: ['CDS'] } });
    await call('POST', '/control/faults', { scenario: 'delay', params: { ms: 1 } });
    const stream = await proxyWithClusters(client);
    stream.send({ type_url: LISTENER_TYPE });
    await mock.server!.expectNoResponse('LDS', 200);
    expect((await call('POST', '/control/release')).body.released).toBe(true);
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    expect((await call('GET', '/control/faults')).body.faults.map((f: Json) => f.scenario)).toEqual(
      ['delay'],
    );
  });
});

describe('POST /control/reset', () => {
  it('removes faults, releases, opens the port, restores the start-up resources, clears the journal', async () => {
    const { client } = await setup({ withholdFirst: true });
    const startVersion = mock.server!.snapshot().version;
    await call('POST', '/control/faults', { scenario: 'down' });
    expect(mock.server!.serving).toBe(false);
    mock.server!.setResources([makeStaticCluster({ name: 'only', endpoints: [] })]);
    const reset = await call('POST', '/control/reset');
    expect(reset).toMatchObject({
      status: 200,
      body: { removedFaults: 1, withheld: false, serving: true },
    });
    expect(mock.server!.journal()).toEqual([]);
    expect(mock.server!.snapshot().version).not.toBe(startVersion);
    const stream = await proxyWithClusters(client);
    expect(stream).toBeDefined();
    const resources = await call('GET', '/control/resources');
    const names = (resources.body.sets[0].resources as Json[]).map((r) => r.name).sort();
    expect(names).toEqual([
      'BlackHoleCluster',
      'inbound|8101||',
      'virtualInbound',
      'virtualOutbound',
    ]);
  });
});

describe('POST /control/push and /control/disconnect', () => {
  it('push sends the current version again to the chosen streams', async () => {
    const { client } = await setup();
    const orders = await proxyWithClusters(client, 'orders-v1-0');
    await proxyWithClusters(client, 'reviews-v1-0');
    const pushed = await call('POST', '/control/push', {
      node: 'sidecar~*~orders-*',
      types: ['CDS'],
    });
    expect(pushed).toEqual({ status: 200, body: { streams: 1 } });
    const again = await orders.next();
    expect(again.version_info).toBe(mock.server!.snapshot().get(CLUSTER_TYPE).version);
    const bad = await call('POST', '/control/push', { types: ['XDS'], node: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect((bad.body.problems as Json[]).map((p) => p.path).sort()).toEqual([
      'extra',
      'node',
      'types[0]',
    ]);
  });

  it('disconnect ends the chosen streams with the status asked for', async () => {
    const { client } = await setup();
    const stream = await proxyWithClusters(client);
    const ended = await call('POST', '/control/disconnect', {
      code: 'PERMISSION_DENIED',
      message: 'go away',
    });
    expect(ended).toEqual({ status: 200, body: { disconnected: 1, code: 'PERMISSION_DENIED' } });
    expect(await stream.done).toEqual({ code: grpc.status.PERMISSION_DENIED, details: 'go away' });
    const bad = await call('POST', '/control/disconnect', { code: 'LOUD', message: 3 });
    expect((bad.body.problems as Json[]).map((p) => p.path)).toEqual(['code', 'message']);
    expect((await call('POST', '/control/disconnect', [])).status).toBe(400);
  });
});

describe('POST /control/down and /control/up', () => {
  it('down closes the xDS port and ends the streams; up opens it again; both are listed', async () => {
    const { client } = await setup();
    const stream = await proxyWithClusters(client);
    expect(await call('POST', '/control/down')).toEqual({ status: 200, body: { serving: false } });
    expect(await stream.done).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(mock.server!.serving).toBe(false);
    expect(await call('POST', '/control/up')).toEqual({ status: 200, body: { serving: true } });
    const again = await proxyWithClusters(client);
    again.send({ type_url: LISTENER_TYPE });
    expect((await again.next()).type_url).toBe(LISTENER_TYPE);
    const index = (await call('GET', '/')).body.endpoints as string[];
    expect(index.filter((e) => /^POST \/control\/(down|up) /.test(e))).toHaveLength(2);
  });
});

describe('default fault ids', () => {
  it('count per scenario, so the first down is down-1 whatever came before; reset starts again', async () => {
    await setup();
    const apply = async (fault: Json) =>
      (await call('POST', '/control/faults', fault)).body.fault.id as string;
    expect(await apply({ scenario: 'delay', params: { ms: 1 } })).toBe('delay-1');
    expect(await apply({ scenario: 'withhold', id: 'down-1' })).toBe('down-1');
    expect(await apply({ scenario: 'delay', params: { ms: 2 } })).toBe('delay-2');
    expect(await apply({ scenario: 'down' })).toBe('down-2'); // down-1 is taken: skipped
    expect(await apply({ scenario: 'stale' })).toBe('stale-1');
    await call('POST', '/control/reset');
    expect(await apply({ scenario: 'down' })).toBe('down-1');
  });
});

describe('/control/resources', () => {
  it('GET shows the sets in canonical JSON; PUT replaces them and the change is pushed', async () => {
    const { client } = await setup();
    const got = await call('GET', '/control/resources');
    expect(got.body.sets[0]).toMatchObject({ name: 'default', types: { CDS: expect.any(String) } });
    const cluster = (got.body.sets[0].resources as Json[]).find(
      (r) => r.name === 'BlackHoleCluster',
    );
    expect(cluster).toMatchObject({
      '@type': CLUSTER_TYPE,
      type: 'STATIC',
      connect_timeout: '10s',
    });

    const stream = await proxyWithClusters(client);
    const next = makeLabResources({ appPort: 9000 });
    const put = await call('PUT', '/control/resources', { resources: next });
    expect(put).toMatchObject({ status: 200, body: { changed: ['CDS', 'LDS'] } });
    const pushed = await stream.next();
    expect(pushed.version_info).toBe(put.body.version);
  });

  it('PUT with problems answers 400 with every field path and keeps the last good set', async () => {
    await setup();
    const version = mock.server!.snapshot().version;
    const broken = [
      { '@type': CLUSTER_TYPE, name: 'a', connect_timeout: 'soon' },
      { '@type': 'type.googleapis.com/envoy.config.nope.v3.Thing', name: 'b' },
      { '@type': CLUSTER_TYPE, connect_timeout: '1s' },
    ];
    const put = await call('PUT', '/control/resources', broken);
    expect(put.status).toBe(400);
    expect((put.body.problems as Json[]).map((p) => p.path)).toEqual([
      'resources[0].connect_timeout',
      'resources[1].@type',
      'resources[2].name',
    ]);
    expect(put.body.error).toMatch(/the last good set keeps serving/);
    expect(mock.server!.snapshot().version).toBe(version);
    expect((await call('PUT', '/control/resources', { resource: [] })).status).toBe(400);
    expect((await call('PUT', '/control/resources', 'null')).status).toBe(400);
  });
});

describe('POST /control/resources/reload', () => {
  it('reloads the resource files now; bad files answer 400 and keep the last good set; 409 without files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reload-'));
    try {
      const file = join(dir, 'resources.yaml');
      const cluster = (name: string, timeout = '1s') =>
        `- '@type': ${CLUSTER_TYPE}\n  name: ${name}\n  type: STATIC\n  connect_timeout: ${timeout}\n`;
      writeFileSync(file, cluster('one'));
      await setup({ resourcesPath: file, watchResources: false });
      writeFileSync(file, cluster('one') + cluster('two'));
      const reloaded = await call('POST', '/control/resources/reload');
      expect(reloaded).toEqual({
        status: 200,
        body: { changed: [{ set: 'default', changed: ['CDS'] }] },
      });
      const version = mock.server!.snapshot().version;
      writeFileSync(file, cluster('three', 'soon'));
      const bad = await call('POST', '/control/resources/reload');
      expect(bad.status).toBe(400);
      expect(bad.body.problems[0].path).toContain('connect_timeout');
      expect(mock.server!.snapshot().version).toBe(version);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await setup();
    expect((await call('POST', '/control/resources/reload')).status).toBe(409);
  });
});

describe('the switch, the state and the endpoint list', () => {
  it('POST /control/withhold holds every response, GET /control/state shows it, release lets go', async () => {
    const { client } = await setup();
    expect(await call('GET', '/ready')).toEqual({ status: 200, body: { ready: true } });
    expect(await call('POST', '/control/withhold')).toEqual({
      status: 200,
      body: { withheld: true },
    });
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await mock.server!.expectNoResponse('CDS', 200);
    const state = await call('GET', '/control/state');
    expect(state.body).toMatchObject({ withheld: true, streams: [{ nodeId: sidecarNode().id }] });
    expect((await call('POST', '/control/release')).body).toEqual({
      released: true,
      withheld: false,
    });
    expect((await stream.next()).type_url).toBe(CLUSTER_TYPE);
  });

  it('answers 404 listing the endpoints, and 405 naming the allowed methods', async () => {
    await setup();
    const unknown = await call('GET', '/control/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.endpoints).toContain(
      'POST /control/faults — apply a fault: {"scenario", "params", "scope", "trigger", "id"}',
    );
    const wrong = await call('PATCH', '/control/faults');
    expect(wrong.status).toBe(405);
    expect(wrong.body.error).toBe('PATCH is not allowed on /control/faults; use GET, POST, DELETE');
  });
});
