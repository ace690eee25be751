/**
 * Every fault and resource endpoint of the control API, good input and bad, driven over
 * HTTP, with the raw ADS test client playing the proxy to see each endpoint's effect.
 * Requests go through the one control client (`client`), typed by the table of operations;
 * refusals are read off its `CONTROL_REFUSED` error (`refusal`). Input the compiler would not
 * let through is sent with `client.run`, and what the client cannot send at all (a body that
 * is not JSON, a bare array, a method no operation has) with `fetch`, by `sendRaw`.
 */
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { ControlClient } from '../../src/api/client.js';
import { operationNamed } from '../../src/api/table.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { AdsTestClient, type AdsTestStream } from '../../src/testing/ads-client.js';
import { isObject } from '../../src/util/guards.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import {
  controlClientOf,
  pathsOf,
  refusal,
  refusalBody,
} from '../support/fixtures/control-client.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it, test } from '../support/fixtures/test.js';

/** A proxy stream that has received (and ACKed) its clusters. */
async function proxyWithClusters(c: AdsTestClient, pod = 'orders-v1-0'): Promise<AdsTestStream> {
  const stream = c.sotw();
  ack(stream, await requestClusters(stream, { node: sidecarNode(pod) }));
  return stream;
}

/**
 * Sends a request as written, past the client: the HTTP status and the JSON answer, unread.
 * For bodies the client cannot send, and where the exact success status is the point.
 */
async function sendRaw(
  client: ControlClient,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${client.baseUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body }),
  });
  const json: unknown = await res.json();
  return { status: res.status, body: json };
}

/** The `name` of each entry of a list read from JSON (undefined where there is none). */
function names(list: unknown): unknown[] {
  if (!Array.isArray(list)) throw new Error(`expected a list, got ${JSON.stringify(list)}`);
  return list.map((item: unknown) => (isObject(item) ? item.name : undefined));
}

describe('GET /control/scenarios', () => {
  it('lists every scenario with the JSON Schema of its parameters', async ({ client }) => {
    const { scenarios } = await client.call('listScenarios');
    expect(scenarios.map((s) => s.name)).toEqual([
      'withhold',
      'partial',
      'delay',
      'nack',
      'reset',
      'down',
      'flap',
      'stale',
    ]);
    const delay = scenarios.find((s) => s.name === 'delay');
    expect(delay).toMatchObject({
      scope: ['node', 'types'],
      params: { type: 'object', required: ['ms'], additionalProperties: false },
    });
    expect(delay?.params.properties).toMatchObject({ seed: { type: 'integer', default: 1 } });
  });

  it('describes one scenario (nack lists its catalogue), 404 with the valid names otherwise', async ({
    client,
  }) => {
    const nack = await client.call('getScenario', { name: 'nack' });
    expect(names(nack.configs)).toContain('unknown-cluster');
    const missing = await refusal(client.call('getScenario', { name: 'explode' }));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe(
      'unknown scenario "explode"; valid scenarios: withhold, partial, delay, nack, reset, down, flap, stale',
    );
    expect(missing.body.scenarios).toHaveLength(8);
  });
});

describe('/control/faults', () => {
  it('applies, lists, shows and removes a fault; held responses go out on removal', async ({
    mock,
    ads,
    client,
  }) => {
    const applied = await sendRaw(
      client,
      'POST',
      '/control/faults',
      JSON.stringify({ scenario: 'withhold', id: 'hold-lds', scope: { types: ['LDS'] } }),
    );
    expect(applied.status).toBe(201);
    expect(applied.body).toMatchObject({
      fault: { id: 'hold-lds', state: 'active', scope: { types: ['LDS'] } },
    });
    const stream = await proxyWithClusters(ads);
    stream.send({ type_url: LISTENER_TYPE });
    await mock.expectNoResponse('LDS', 300);

    const { faults } = await client.call('listFaults');
    expect(faults).toHaveLength(1);
    expect(faults[0]?.counts.held).toBeGreaterThan(0);
    expect((await client.call('getFault', { id: 'hold-lds' })).fault.id).toBe('hold-lds');

    const removed = await client.call('removeFault', { id: 'hold-lds' });
    expect(removed).toMatchObject({ removed: { id: 'hold-lds' } });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    expect((await client.call('listFaults')).faults).toEqual([]);
  });

  it('answers 400 listing every problem with its path, and applies nothing', async ({ client }) => {
    const bad = await refusal(
      client.run(operationNamed('applyFault'), {
        scenario: 'delay',
        params: { ms: 'soon', extra: 1 },
        scope: { types: ['LDS', 'XDS'], node: 7 },
        trigger: { after: '5s', afterResponses: 2 },
        colour: 'red',
      }),
    );
    expect(bad.status).toBe(400);
    expect(pathsOf(bad.problems).sort()).toEqual([
      'colour',
      'params.extra',
      'params.ms',
      'scope.node',
      'scope.types[1]',
      'trigger',
    ]);
    expect(bad.body.problems).toEqual(bad.problems);
    expect(bad.body.error).toMatch(/^invalid fault: /);
    expect((await client.call('listFaults')).faults).toEqual([]);
  });

  it('answers 404 for an unknown scenario, 400 for a missing one, a duplicate id, or a non-JSON body', async ({
    client,
  }) => {
    const unknown = await refusal(client.call('applyFault', { scenario: 'explode' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.scenarios).toContain('withhold');
    const missing = await refusal(client.call('applyFault', { params: {} }));
    expect(missing.status).toBe(400);
    expect(missing.problems[0]).toMatchObject({ path: 'scenario' });
    const first = JSON.stringify({ scenario: 'delay', params: { ms: 5 }, id: 'a' });
    expect((await sendRaw(client, 'POST', '/control/faults', first)).status).toBe(201);
    const twice = await refusal(
      client.call('applyFault', { scenario: 'delay', params: { ms: 5 }, id: 'a' }),
    );
    expect(twice).toMatchObject({ status: 400, body: { problems: [{ path: 'id' }] } });
    const notJson = await sendRaw(client, 'POST', '/control/faults', '{nope');
    expect(notJson.status).toBe(400);
    expect(refusalBody(notJson.body).error).toMatch(/not valid JSON/);
  });

  it('answers 404 for an unknown fault id, and DELETE /control/faults removes them all', async ({
    client,
  }) => {
    expect((await refusal(client.call('getFault', { id: 'none' }))).status).toBe(404);
    expect((await refusal(client.call('removeFault', { id: 'none' }))).status).toBe(404);
    await client.call('applyFault', { scenario: 'withhold' });
    await client.call('applyFault', { scenario: 'delay', params: { ms: '1s' } });
    const cleared = await client.call('clearFaults');
    expect(cleared.removed.map((f) => f.scenario).sort()).toEqual(['delay', 'withhold']);
  });

  it('POST /control/release removes holding faults and lets their responses go', async ({
    mock,
    ads,
    client,
  }) => {
    await client.call('applyFault', { scenario: 'partial', params: { answer: ['CDS'] } });
    await client.call('applyFault', { scenario: 'delay', params: { ms: 1 } });
    const stream = await proxyWithClusters(ads);
    stream.send({ type_url: LISTENER_TYPE });
    await mock.expectNoResponse('LDS', 200);
    expect((await client.call('release')).released).toBe(true);
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    expect((await client.call('listFaults')).faults.map((f) => f.scenario)).toEqual(['delay']);
  });
});

describe('POST /control/reset', () => {
  test.override({ mockOptions: { withholdFirst: true } });
  it('removes faults, releases, opens the port, restores the start-up resources, clears the journal', async ({
    mock,
    ads,
    client,
  }) => {
    const startVersion = mock.snapshot().version;
    await client.call('applyFault', { scenario: 'down' });
    expect((await mock.control.state()).serving).toBe(false);
    await mock.control.setResources({
      resources: [makeStaticCluster({ name: 'only', endpoints: [] })],
    });
    const reset = await client.call('reset');
    expect(reset).toMatchObject({ removedFaults: 1, withheld: false, serving: true });
    expect(mock.journal.query()).toEqual([]);
    expect(mock.snapshot().version).not.toBe(startVersion);
    const stream = await proxyWithClusters(ads);
    expect(stream).toBeDefined();
    const { sets } = await client.call('getResources');
    expect(names(sets[0]?.resources).sort()).toEqual([
      'BlackHoleCluster',
      'inbound|8101||',
      'virtualInbound',
      'virtualOutbound',
    ]);
  });
});

describe('POST /control/push and /control/disconnect', () => {
  it('push sends the current version again to the chosen streams', async ({
    mock,
    ads,
    client,
  }) => {
    const orders = await proxyWithClusters(ads, 'orders-v1-0');
    await proxyWithClusters(ads, 'reviews-v1-0');
    const pushed = await client.call('push', { node: 'sidecar~*~orders-*', types: ['CDS'] });
    expect(pushed).toEqual({ streams: 1 });
    const again = await orders.next();
    expect(again.version_info).toBe(mock.snapshot().get(CLUSTER_TYPE).version);
    const bad = await refusal(
      client.run(operationNamed('push'), { types: ['XDS'], node: '', extra: 1 }),
    );
    expect(bad.status).toBe(400);
    expect(pathsOf(bad.problems).sort()).toEqual(['extra', 'node', 'types[0]']);
  });

  it('disconnect ends the chosen streams with the status asked for', async ({ ads, client }) => {
    const stream = await proxyWithClusters(ads);
    const ended = await client.call('disconnect', {
      code: 'PERMISSION_DENIED',
      message: 'go away',
    });
    expect(ended).toEqual({ disconnected: 1, code: 'PERMISSION_DENIED' });
    expect(await stream.done).toEqual({ code: grpc.status.PERMISSION_DENIED, details: 'go away' });
    const bad = await refusal(
      client.run(operationNamed('disconnect'), { code: 'LOUD', message: 3 }),
    );
    expect(pathsOf(bad.problems)).toEqual(['code', 'message']);
    expect((await sendRaw(client, 'POST', '/control/disconnect', '[]')).status).toBe(400);
  });
});

describe('POST /control/down and /control/up', () => {
  it('down closes the xDS port and ends the streams; up opens it again; both are listed', async ({
    mock,
    ads,
    client,
  }) => {
    const stream = await proxyWithClusters(ads);
    expect(await client.call('down')).toEqual({ serving: false });
    expect(await stream.done).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect((await mock.control.state()).serving).toBe(false);
    expect(await client.call('up')).toEqual({ serving: true });
    const again = await proxyWithClusters(ads);
    again.send({ type_url: LISTENER_TYPE });
    expect((await again.next()).type_url).toBe(LISTENER_TYPE);
    // `/` has no route of its own: its 404 lists every endpoint.
    const index = await refusal(client.getJson('/'));
    const endpoints = Array.isArray(index.body.endpoints) ? index.body.endpoints : [];
    expect(
      endpoints.filter((e) => typeof e === 'string' && /^POST \/control\/(down|up) /.test(e)),
    ).toHaveLength(2);
  });
});

describe('default fault ids', () => {
  it('count per scenario, so the first down is down-1 whatever came before; reset starts again', async ({
    client,
  }) => {
    const apply = async (fault: { scenario: string; id?: string; params?: object }) =>
      (await client.call('applyFault', fault)).fault.id;
    expect(await apply({ scenario: 'delay', params: { ms: 1 } })).toBe('delay-1');
    expect(await apply({ scenario: 'withhold', id: 'down-1' })).toBe('down-1');
    expect(await apply({ scenario: 'delay', params: { ms: 2 } })).toBe('delay-2');
    expect(await apply({ scenario: 'down' })).toBe('down-2'); // down-1 is taken: skipped
    expect(await apply({ scenario: 'stale' })).toBe('stale-1');
    await client.call('reset');
    expect(await apply({ scenario: 'down' })).toBe('down-1');
  });
});

describe('/control/resources', () => {
  it('GET shows the sets in canonical JSON; PUT replaces them and the change is pushed', async ({
    ads,
    client,
  }) => {
    const { sets } = await client.call('getResources');
    expect(sets[0]?.name).toBe('default');
    expect(typeof sets[0]?.types.CDS).toBe('string');
    const cluster = sets[0]?.resources.find((r) => isObject(r) && r.name === 'BlackHoleCluster');
    expect(cluster).toMatchObject({
      '@type': CLUSTER_TYPE,
      type: 'STATIC',
      connect_timeout: '10s',
    });

    const stream = await proxyWithClusters(ads);
    const next = makeLabResources({ appPort: 9000 });
    const put = await client.call('setResources', { resources: next });
    expect(put).toMatchObject({ changed: ['CDS', 'LDS'] });
    const pushed = await stream.next();
    expect(pushed.version_info).toBe('version' in put ? put.version : undefined);
  });

  it('PUT with problems answers 400 with every field path and keeps the last good set', async ({
    mock,
    client,
  }) => {
    const version = mock.snapshot().version;
    const broken = [
      { '@type': CLUSTER_TYPE, name: 'a', connect_timeout: 'soon' },
      { '@type': 'type.googleapis.com/envoy.config.nope.v3.Thing', name: 'b' },
      { '@type': CLUSTER_TYPE, connect_timeout: '1s' },
    ];
    // A bare array, as the route also takes it (the client always sends an object).
    const put = await sendRaw(client, 'PUT', '/control/resources', JSON.stringify(broken));
    expect(put.status).toBe(400);
    const refused = refusalBody(put.body);
    expect(pathsOf(refused.problems)).toEqual([
      'resources[0].connect_timeout',
      'resources[1].@type',
      'resources[2].name',
    ]);
    expect(refused.error).toMatch(/the last good set keeps serving/);
    expect(mock.snapshot().version).toBe(version);
    const misnamed = client.run(operationNamed('setResources'), { resource: [] });
    expect((await refusal(misnamed)).status).toBe(400);
    expect((await sendRaw(client, 'PUT', '/control/resources', 'null')).status).toBe(400);
  });
});

describe('POST /control/resources/reload', () => {
  it('reloads the resource files now; bad files answer 400 and keep the last good set', async ({
    startMock,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-reload-'));
    try {
      const file = join(dir, 'resources.yaml');
      const cluster = (name: string, timeout = '1s') =>
        `- '@type': ${CLUSTER_TYPE}\n  name: ${name}\n  type: STATIC\n  connect_timeout: ${timeout}\n`;
      writeFileSync(file, cluster('one'));
      const mock = await startMock({ resourcesPath: file, watchResources: false });
      const client = controlClientOf(mock);
      writeFileSync(file, cluster('one') + cluster('two'));
      expect(await client.call('reloadResources')).toEqual({
        changed: [{ set: 'default', changed: ['CDS'] }],
      });
      const version = mock.snapshot().version;
      writeFileSync(file, cluster('three', 'soon'));
      const bad = await refusal(client.call('reloadResources'));
      expect(bad.status).toBe(400);
      expect(bad.problems[0]?.path).toContain('connect_timeout');
      expect(mock.snapshot().version).toBe(version);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 409 when the mock has no resource files', async ({ client }) => {
    expect((await refusal(client.call('reloadResources'))).status).toBe(409);
  });
});

describe('the switch, the state and the endpoint list', () => {
  it('POST /control/withhold holds every response, GET /control/state shows it, release lets go', async ({
    mock,
    ads,
    client,
  }) => {
    expect(await client.call('ready')).toEqual({ ready: true });
    expect(await client.call('withhold')).toEqual({ withheld: true });
    const stream = ads.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await mock.expectNoResponse('CDS', 200);
    const state = await client.call('state');
    expect(state).toMatchObject({ withheld: true, streams: [{ nodeId: sidecarNode().id }] });
    expect(await client.call('release')).toEqual({ released: true, withheld: false });
    expect((await stream.next()).type_url).toBe(CLUSTER_TYPE);
  });

  it('answers 404 listing the endpoints, and 405 naming the allowed methods', async ({
    client,
  }) => {
    const unknown = await refusal(client.getJson('/control/nothing'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.endpoints).toContain(
      'POST /control/faults — apply a fault: {"scenario", "params", "scope", "trigger", "id"}',
    );
    const wrong = await sendRaw(client, 'PATCH', '/control/faults');
    expect(wrong.status).toBe(405);
    expect(refusalBody(wrong.body).error).toBe(
      'PATCH is not allowed on /control/faults; use GET, POST, DELETE',
    );
  });
});
