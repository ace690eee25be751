/**
 * The fault engine and each scenario, at the protocol level: the raw ADS test client plays
 * the proxy (state of the world and delta), so every decision — hold, delay, replace, end —
 * and every trigger and scope can be seen exactly on the wire.
 */
import * as grpc from '@grpc/grpc-js';
import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { MockIstiodError } from '../../src/util/errors.js';
import { AdsTestClient, type ClientResponse } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { envoyRoot } from '../../src/xds/protos.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { ack, handshake, nack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const listenerType = envoyRoot().lookupType('envoy.config.listener.v3.Listener');
function listenerNames(response: ClientResponse): string[] {
  return response.resources
    .map((r) => (listenerType.decode(r.value) as unknown as { name: string }).name)
    .sort();
}

/** Opens a stream, takes and ACKs CDS then LDS; returns the stream and both responses. */
async function synced(c: AdsTestClient, pod = 'orders-v1-0') {
  const stream = c.sotw();
  const { cds, lds } = await handshake(stream, { node: sidecarNode(pod) });
  ack(stream, lds);
  return { stream, cds, lds };
}

describe('the engine', () => {
  it('refuses an invalid fault with a 400 naming every problem', async ({ mock: server }) => {
    const error = await server.control
      .inject({ scenario: 'reset', params: { code: 'LOUD', times: 0 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MockIstiodError);
    expect(error).toMatchObject({
      code: 'CONTROL_REFUSED',
      details: { status: 400 },
      problems: [
        {
          path: 'params.code',
          message: expect.stringContaining('expected a gRPC status name') as unknown,
        },
        { path: 'params.times', message: 'expected an integer ≥ 1, found 0' },
      ],
    });
    expect((await server.control.listFaults()).faults).toEqual([]);
  });

  it('lets the first active fault in scope decide, and resyncs what it changed on removal', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, lds } = await synced(client);
    const badConfig = await server.control.inject({
      scenario: 'nack',
      params: { config: 'no-filter-chains' },
    });
    await server.control.inject({ scenario: 'withhold', scope: { types: ['LDS'] } });
    const bad = await stream.next();
    expect(listenerNames(bad)).toEqual([
      'nack-no-filter-chains',
      'virtualInbound',
      'virtualOutbound',
    ]);
    expect(bad.version_info).toBe(`${lds.version_info}+nack.no-filter-chains`);
    await badConfig.remove();
    await badConfig.remove(); // idempotent
    // The withhold fault now holds the resync of LDS; releasing lets it out.
    await server.expectNoResponse('LDS', 200);
    await server.control.release();
    const back = await stream.next();
    expect(back.version_info).toBe(lds.version_info);
    expect(listenerNames(back)).toEqual(['virtualInbound', 'virtualOutbound']);
  });
});

describe('triggers', () => {
  it('onRequest with a type: armed until the proxy asks for LDS, then acting on it', async ({
    mock: server,
    ads: client,
  }) => {
    const fault = await server.control.inject({
      scenario: 'withhold',
      scope: { types: ['LDS'] },
      trigger: { onRequest: { type: 'LDS', node: 'sidecar~*~orders-*' } },
    });
    const stream = client.sotw();
    ack(stream, await requestClusters(stream));
    expect((await fault.info()).state).toBe('armed');
    stream.send({ type_url: LISTENER_TYPE });
    expect((await fault.whenActive()).state).toBe('active');
    await server.expectNoResponse('LDS', 300);
  });

  it('afterResponses counts responses in scope only', async ({ mock: server, ads: client }) => {
    const fault = await server.control.inject({
      scenario: 'reset',
      params: { preset: 'rate-limit' },
      scope: { node: '*reviews*' },
      trigger: { afterResponses: 2 },
    });
    await synced(client, 'orders-v1-0'); // two responses, out of scope
    expect((await fault.info()).state).toBe('armed');
    const reviews = client.sotw();
    ack(reviews, await requestClusters(reviews, { node: sidecarNode('reviews-v1-0') }));
    reviews.send({ type_url: LISTENER_TYPE });
    await reviews.next(); // the second response in scope: the trigger fires, the stream ends
    expect(await reviews.done).toEqual({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: 'request rate limit exceeded: rate: Wait(n=1) would exceed context deadline',
    });
    expect((await fault.info()).state).toBe('active');
    expect(server.streams().map((s) => s.proxy.id)).toEqual(['orders-v1-0.default']);
  });

  it('after T: armed, then active on time', async ({ mock: server }) => {
    const fault = await server.control.inject({
      scenario: 'delay',
      params: { ms: 1 },
      trigger: { after: '300ms' },
    });
    expect((await fault.info()).state).toBe('armed');
    await expect(fault.whenActive({ timeoutMs: 100 })).rejects.toMatchObject({
      code: 'WAIT_TIMEOUT',
      message: `timed out after 100 ms waiting for fault "${fault.id}"'s trigger to fire`,
      details: { lastValue: { fault: { id: fault.id, state: 'armed' } } },
    });
    const active = await fault.whenActive();
    expect(Date.parse(active.activatedAt!) - Date.parse(active.appliedAt)).toBeGreaterThanOrEqual(
      290,
    );
  });
});

describe('reset', () => {
  it('with scope.types ends the stream when that type is due, with the authorization wording', async ({
    mock: server,
    ads: client,
  }) => {
    await server.control.inject({
      scenario: 'reset',
      params: { preset: 'authorization' },
      scope: { types: ['LDS'] },
    });
    const stream = client.sotw();
    ack(stream, await requestClusters(stream, { node: sidecarNode('orders-v1-0', 'shop') }));
    stream.send({ type_url: LISTENER_TYPE });
    expect(await stream.done).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      details:
        'authorization failed: no identities ([spiffe://cluster.local/ns/other/sa/other]) matched shop/default',
    });
  });

  it('with times stops after that many streams and is then done', async ({
    mock: server,
    ads: client,
  }) => {
    const fault = await server.control.inject({
      scenario: 'reset',
      params: { preset: 'not-ready', times: 1 },
    });
    const first = client.sotw();
    first.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(await first.done).toEqual({
      code: grpc.status.UNAVAILABLE,
      details: 'server is not ready to serve discovery information',
    });
    expect(await fault.info()).toMatchObject({
      state: 'done',
      reason: 'ended 1 stream (times: 1)',
    });
    await synced(client);
  });
});

describe('nack policies', () => {
  it('resend: the bad config again after each NACK, every interval', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, lds } = await synced(client);
    await server.control.inject({
      scenario: 'nack',
      params: { config: 'unknown-cluster', after: 'resend', interval: 100 },
    });
    for (let i = 0; i < 3; i++) {
      const bad = await stream.next();
      expect(listenerNames(bad)).toContain('nack-unknown-cluster');
      nack(stream, bad, lds.version_info);
    }
    await waitFor(
      async () => ((await server.control.listFaults()).faults[0]?.counts.rejected ?? 0) >= 3,
    );
  });

  it('stop: nothing more after the NACK, even for a new version of the type', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, lds } = await synced(client);
    await server.control.inject({ scenario: 'nack', params: { config: 'unknown-filter' } });
    const bad = await stream.next();
    nack(stream, bad, lds.version_info);
    await server.waitForNack(LISTENER_TYPE);
    await server.control.setResources({ resources: [] }); // a new (empty) version of every type
    await server.expectNoResponse('LDS', 300);
  });

  it('stop: a push that goes out before the NACK arrives is bad too, and its NACK counts', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, lds } = await synced(client);
    const fault = await server.control.inject({
      scenario: 'nack',
      params: { config: 'unknown-filter' },
    });
    const first = await stream.next();
    await server.control.setResources({ resources: [] }); // a new version, the NACK not in yet
    const second = await stream.next(); // CDS goes out as it is
    const secondLds = second.type_url === LISTENER_TYPE ? second : await stream.next();
    expect(secondLds.version_info).toMatch(/\+nack\.unknown-filter$/);
    expect(secondLds.version_info).not.toBe(first.version_info);
    for (const bad of [first, secondLds]) nack(stream, bad, lds.version_info);
    await waitFor(async () => (await fault.info()).counts.rejected === 2, {
      description: 'both NACKs counted',
    });
    await server.control.setResources({ resources: makeLabResources() });
    await server.expectNoResponse('LDS', 300);
  });
});

describe('stale', () => {
  it('replaces with the previous version and the stream’s previous nonce', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, lds } = await synced(client);
    await server.control.setResources({ resources: [] }); // a second version of every type: empty
    const empty = await stream.next(); // CDS, then LDS
    ack(stream, empty);
    const emptyLds = await stream.next();
    ack(stream, emptyLds);
    await server.control.inject({ scenario: 'stale', scope: { types: ['LDS'] } });
    const stale = await stream.next();
    expect(stale).toMatchObject({
      type_url: LISTENER_TYPE,
      version_info: lds.version_info,
      nonce: emptyLds.nonce,
    });
    expect(listenerNames(stale)).toEqual(['virtualInbound', 'virtualOutbound']);
  });

  it('refuses oldVersion and reuseNonce both false', async ({ mock: server }) => {
    await expect(
      server.control.inject({
        scenario: 'stale',
        params: { oldVersion: false, reuseNonce: false },
      }),
    ).rejects.toMatchObject({ problems: [{ path: 'params' }] });
  });
});

describe('down / up', () => {
  it('ends streams with UNAVAILABLE, refuses connections, and comes back on the same port', async ({
    mock: server,
    ads: client,
  }) => {
    const { stream, cds } = await synced(client);
    const port = server.addresses.xds.port;
    await server.control.down();
    expect(await stream.done).toEqual({
      code: grpc.status.UNAVAILABLE,
      details: 'mock istiod is down',
    });
    const refused = await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
    });
    expect(refused).toBe('ECONNREFUSED');
    await server.control.up();
    expect(server.addresses.xds.port).toBe(port);
    const again = client.sotw();
    again.send({ type_url: CLUSTER_TYPE, node: sidecarNode(), version_info: cds.version_info });
    expect((await again.next()).version_info).toBe(cds.version_info);
    expect(server.journal.query({ kind: 'reconnect' })).toHaveLength(1);
  });

  it('flap runs its cycles and ends up, done', async ({ mock: server }) => {
    const fault = await server.control.inject({
      scenario: 'flap',
      params: { down: 50, up: 50, cycles: 3 },
    });
    await fault.whenDone();
    expect((await fault.info()).counts.downs).toBe(3);
    expect((await server.control.state()).serving).toBe(true);
  });
});

describe('over delta xDS', () => {
  it('withhold, push and disconnect act on delta streams too', async ({
    mock: server,
    ads: client,
  }) => {
    const hold = await server.control.inject({ scenario: 'withhold' });
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await server.expectNoResponse('CDS', 200);
    await hold.remove();
    const first = await stream.nextDelta();
    expect(first.resources).toHaveLength(2);
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await server.waitForAck(CLUSTER_TYPE);
    expect(
      await server.control.disconnect({
        node: 'sidecar~*',
        code: grpc.status.INTERNAL,
        message: 'bye',
      }),
    ).toEqual({ disconnected: 1, code: 'INTERNAL' });
    expect(await stream.done).toEqual({ code: grpc.status.INTERNAL, details: 'bye' });
  });
});
