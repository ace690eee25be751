import { describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import type { ClientDeltaResponse } from '../../src/testing/ads-client.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const names = (r: ClientDeltaResponse) => r.resources.map((x) => x.name).sort();
const versions = (r: ClientDeltaResponse) =>
  Object.fromEntries(r.resources.map((x) => [x.name, x.version]));

function loadAssignment(cluster: string, port: number) {
  return {
    '@type': ENDPOINT_TYPE,
    cluster_name: cluster,
    endpoints: [
      {
        lb_endpoints: [
          { endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } } },
        ],
      },
    ],
  };
}

describe('delta ADS', () => {
  // istiod sends delta resources unversioned: conformance case "Delta: subscriptions: a first
  // CDS request with no names is a wildcard: every cluster, unversioned".
  it('treats an empty first CDS subscription as wildcard and sends every cluster, unversioned', async ({
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const response = await stream.nextDelta();
    expect(names(response)).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    expect(
      response.resources.every((r) => r.version === '' && r.resource.type_url === CLUSTER_TYPE),
    ).toBe(true);
    expect(response.removed_resources).toEqual([]);
    expect(response.nonce).not.toBe('');
  });

  it("with versioning 'per-type', gives every resource a content version", async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ versioning: 'per-type' });
    const stream = connect(server).delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const response = await stream.nextDelta();
    expect(response.resources.every((r) => r.version !== '')).toBe(true);
  });

  it('sends only what changed, and removals only in removed_resources; ACKs are not answered', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await server.waitForAck(CLUSTER_TYPE);

    const lab = makeLabResources({ appPort: 9000 }).filter((r) => r.name !== 'BlackHoleCluster');
    await server.control.setResources({
      resources: [...lab, makeStaticCluster({ name: 'extra', endpoints: [] })],
    });
    const pushed = await stream.nextDelta();
    expect(names(pushed)).toEqual(['extra', 'inbound|9000||']);
    expect(pushed.removed_resources.sort()).toEqual(['BlackHoleCluster', 'inbound|8101||']);
  });

  // istiod sends a reconnect everything (conformance case "Delta: reconnects and EDS after
  // CDS: a CDS reconnect listing a cluster that is gone is sent every cluster, and that one as
  // removed"); only the deltaResourceVersions option (or the per-type scheme, which implies
  // it) skips what the proxy has.
  it('sends a reconnecting proxy everything again, and removes what it lists that is gone', async ({
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    stream.close();

    const again = client.delta();
    const have = { ...versions(first), 'gone-meanwhile': '' };
    again.send({ type_url: CLUSTER_TYPE, node: sidecarNode(), initial_resource_versions: have });
    const response = await again.nextDelta();
    expect(names(response)).toEqual(names(first));
    expect(response.removed_resources).toEqual(['gone-meanwhile']);
  });

  it.for([
    ['deltaResourceVersions', { deltaResourceVersions: true }],
    ["versioning 'per-type'", { versioning: 'per-type' as const }],
  ] as const)(
    'with %s, does not send again what a reconnecting proxy lists in initial_resource_versions',
    async ([, options], { startMock, connect }) => {
      const server = await startMock(options);
      const client = connect(server);
      const stream = client.delta();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      const first = await stream.nextDelta();
      stream.close();

      const again = client.delta();
      const have = versions(first);
      have['gone-meanwhile'] = 'v0';
      const reconnects: number[] = [];
      server.events.on(
        'request',
        (_s, o) => o.kind === 'reconnect' && reconnects.push(o.known ?? -1),
      );
      again.send({ type_url: CLUSTER_TYPE, node: sidecarNode(), initial_resource_versions: have });
      const response = await again.nextDelta();
      expect(response.resources).toEqual([]);
      expect(response.removed_resources).toEqual(['gone-meanwhile']);
      expect(reconnects).toEqual([3]);
    },
  );

  // A name that does not exist is answered with an empty resource, not left out: conformance
  // case "Delta: removals: an EDS name that never existed is answered with an empty resource".
  it('serves explicit subscriptions by name and forgets unsubscribed names', async ({
    startMock,
    connect,
  }) => {
    const resources = [...makeLabResources(), loadAssignment('a', 1), loadAssignment('b', 2)];
    const server = await startMock({ resources });
    const stream = connect(server).delta();
    stream.send({
      type_url: ENDPOINT_TYPE,
      node: sidecarNode(),
      resource_names_subscribe: ['a', 'missing'],
    });
    const first = await stream.nextDelta();
    expect(names(first)).toEqual(['a', 'missing']);
    stream.send({
      type_url: ENDPOINT_TYPE,
      response_nonce: first.nonce,
      resource_names_subscribe: ['b'],
    });
    expect(names(await stream.nextDelta())).toEqual(['b']);
    stream.send({ type_url: ENDPOINT_TYPE, resource_names_unsubscribe: ['a'] });
    await waitFor(() => server.journal.query({ kind: 'unsubscribe' }).length === 1, {
      description: 'the unsubscribe request to reach the server',
    });
    // Removing "a" from the set is not sent to a proxy that unsubscribed from it. The change
    // is a full push, as istiod's: every name still subscribed is sent again, "missing" as an
    // empty resource (conformance: "delta: a push re-sends every resource of every watched
    // type, at one new version").
    await server.control.setResources({
      resources: [...makeLabResources(), loadAssignment('b', 3)],
    });
    const pushed = await stream.nextDelta();
    expect(names(pushed)).toEqual(['b', 'missing']);
    expect(pushed.removed_resources).toEqual([]);
  });

  it('records a NACK and does not send the rejected resources again; ignores stale nonces', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const cds = await stream.nextDelta();
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: 'stale' });
    stream.send({
      type_url: CLUSTER_TYPE,
      response_nonce: cds.nonce,
      error_detail: { code: 13, message: 'no' },
    });
    stream.send({ type_url: LISTENER_TYPE });
    expect((await stream.nextDelta()).type_url).toBe(LISTENER_TYPE);
    const { nack } = await server.waitForNack(CLUSTER_TYPE);
    expect(nack).toMatchObject({ nonce: cds.nonce, message: 'no', code: 13 });
    expect(server.journal.query({ kind: 'stale' })).toHaveLength(1);
    expect(server.streams()[0]?.protocol).toBe('delta');
  });

  it("istiod's shouldRespondDelta: answers a type's first request even when it carries a nonce; stale after that", async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(), response_nonce: 'from-before' });
    const cds = await stream.nextDelta();
    expect(names(cds)).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: 'from-before' });
    stream.send({ type_url: LISTENER_TYPE, response_nonce: 'unknown-too' });
    expect((await stream.nextDelta()).type_url).toBe(LISTENER_TYPE);
    expect(server.journal.query({ kind: 'stale' })).toHaveLength(1);
  });
});

describe('delta streams and the rest of the server', () => {
  it('are withheld and released like SotW streams, and journaled the same way', async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ withholdFirst: true });
    const client = connect(server);
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await waitFor(() => server.journal.query({ kind: 'subscribe' }).length === 1, {
      description: 'the delta subscription to reach the server',
    });
    expect(server.streams()[0]?.types.get(CLUSTER_TYPE)?.sent).toBeUndefined();
    expect((await server.control.release()).released).toBe(true);
    expect(names(await stream.nextDelta())).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    expect(server.journal.query().map((e) => e.kind)).toEqual(['open', 'subscribe', 'response']);
  });
});
