import * as grpc from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { encodeStats } from '../../src/xds/wire.js';
import { refusal } from '../support/fixtures/control-client.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const VERSION_PATTERN = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/\d+$/;
const clusterType = envoyRoot().lookupType('envoy.config.cluster.v3.Cluster');

function clusterNames(resources: { value: Buffer }[]): string[] {
  return resources
    .map((r) => (clusterType.decode(r.value) as unknown as { name: string }).name)
    .sort();
}

describe('the first request of a stream', () => {
  it('without a node ends the stream with INVALID_ARGUMENT "missing node information"', async ({
    ads: client,
  }) => {
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE });
    const end = await stream.done;
    expect(end).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'missing node information',
    });
  });

  it.for([
    ['a~b~c', 'missing parts in the service node "a~b~c"'],
    [
      'gateway~10.0.0.1~p.ns~ns.svc.cluster.local',
      'invalid node type (valid types: [sidecar router waypoint ztunnel]) in the service node "gateway~10.0.0.1~p.ns~ns.svc.cluster.local"',
    ],
    [
      'sidecar~not-an-ip~p.ns~ns.svc.cluster.local',
      'no valid IP address in the service node id or metadata',
    ],
  ] as const)(
    'with node id %s is refused as istiod refuses it',
    async ([id, details], { ads: client }) => {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: { id } });
      expect(await stream.done).toEqual({ code: grpc.status.INVALID_ARGUMENT, details });
    },
  );
});

describe('state-of-the-world ADS', () => {
  it('answers a wildcard CDS request with every cluster, an istiod-style version and a nonce', async ({
    ads: client,
  }) => {
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const response = await stream.next();
    expect(response.type_url).toBe(CLUSTER_TYPE);
    expect(response.version_info).toMatch(VERSION_PATTERN);
    expect(response.nonce).not.toBe('');
    expect(clusterNames(response.resources)).toEqual(['BlackHoleCluster', 'inbound|8101||']);
  });

  it('does not answer an ACK, and records it', async ({ mock: server, ads: client }) => {
    const stream = client.sotw();
    const cds = await requestClusters(stream);
    ack(stream, cds);
    // Requests on one stream are handled in order: had the ACK been answered, that answer
    // would arrive before the LDS response.
    stream.send({ type_url: LISTENER_TYPE });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    const acked = await server.waitForAck(CLUSTER_TYPE);
    expect(acked.version).toBe(cds.version_info);
  });

  it('ignores a request with a stale nonce', async ({ mock: server, ads: client }) => {
    const stream = client.sotw();
    const cds = await requestClusters(stream);
    stream.send({
      type_url: CLUSTER_TYPE,
      version_info: cds.version_info,
      response_nonce: 'not-a-nonce-we-sent',
    });
    stream.send({ type_url: LISTENER_TYPE });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    const state = server.streams()[0]?.types.get(CLUSTER_TYPE);
    expect(state?.acked).toBeUndefined();
    expect(state?.sent?.nonce).toBe(cds.nonce);
  });

  it("istiod's ShouldRespond: answers a type's first request even when it carries a nonce (as istioctl sends)", async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    stream.send({
      type_url: CLUSTER_TYPE,
      node: sidecarNode(),
      response_nonce: String(Date.now()),
    });
    const cds = await stream.next();
    expect(cds.type_url).toBe(CLUSTER_TYPE);
    expect(clusterNames(cds.resources)).toEqual(['BlackHoleCluster', 'inbound|8101||']);
    // Once the type is known, the rule is the usual one: an unknown nonce is stale.
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: 'unknown-again' });
    stream.send({ type_url: LISTENER_TYPE, response_nonce: 'unknown-too' });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    expect(server.journal.query({ kind: 'stale' })).toHaveLength(1);
  });

  it("records a NACK with Envoy's message and does not send the rejected version again", async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const cds = await requestClusters(stream);
    const message =
      "Proto constraint validation failed: connect_timeout: value must be greater than '0s'";
    stream.send({
      type_url: CLUSTER_TYPE,
      response_nonce: cds.nonce,
      error_detail: { code: 13, message },
    });
    stream.send({ type_url: LISTENER_TYPE });
    expect((await stream.next()).type_url).toBe(LISTENER_TYPE);
    const { nack } = await server.waitForNack(CLUSTER_TYPE);
    expect(nack).toMatchObject({ version: cds.version_info, nonce: cds.nonce, code: 13, message });
  });

  it('answers a reconnecting proxy (version set, no nonce) and reports the version it runs', async ({
    mock: server,
    ads: client,
  }) => {
    const reconnects: string[] = [];
    server.events.on('request', (_s, outcome) => {
      if (outcome.kind === 'reconnect') reconnects.push(outcome.version);
    });
    const stream = client.sotw();
    stream.send({
      type_url: CLUSTER_TYPE,
      node: sidecarNode(),
      version_info: 'an-older-version/3',
    });
    const response = await stream.next();
    expect(response.version_info).toBe(server.snapshot().get(CLUSTER_TYPE).version);
    expect(reconnects).toEqual(['an-older-version/3']);
  });

  it('answers a type istiod generates but the set has none of with an empty response', async ({
    ads: client,
  }) => {
    const stream = client.sotw();
    const typeUrl = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';
    // Asked by name: SDS with no names ends the watch unanswered, as istiod does (conformance:
    // "SotW: empty resource_names: SDS: a first request with no names is not answered …").
    stream.send({ type_url: typeUrl, node: sidecarNode(), resource_names: ['default'] });
    const response = await stream.next();
    expect(response.type_url).toBe(typeUrl);
    expect(response.resources).toEqual([]);
    expect(response.nonce).not.toBe('');
  });

  it('pushes a change to every open stream, encoding the response once for all of them', async ({
    mock: server,
    ads: client,
  }) => {
    const streams = [client.sotw(), client.sotw()];
    streams.forEach((s, i) =>
      s.send({ type_url: CLUSTER_TYPE, node: sidecarNode(`orders-v1-${i}`) }),
    );
    const first = await Promise.all(streams.map((s) => s.next()));
    const before = encodeStats.responseBodies;
    const result = await server.control.setResources({
      resources: makeLabResources({ appPort: 8102 }),
    });
    expect(result.changed).toEqual(['CDS', 'LDS']);
    const pushed = await Promise.all(streams.map((s) => s.next()));
    expect(encodeStats.responseBodies - before).toBe(1);
    for (const [i, response] of pushed.entries()) {
      expect(response.version_info).not.toBe(first[i]?.version_info);
      expect(clusterNames(response.resources)).toEqual(['BlackHoleCluster', 'inbound|8102||']);
    }
    expect(pushed[0]?.nonce).not.toBe(pushed[1]?.nonce);
  });

  it('keeps serving the last good set when new resources are invalid', async ({ mock: server }) => {
    const version = server.snapshot().get(CLUSTER_TYPE).version;
    const result = await refusal(
      server.control.setResources({
        resources: [{ '@type': CLUSTER_TYPE, name: 'x', connect_timeout: 'soon' }],
      }),
    );
    expect(result.status).toBe(400);
    expect(result.problems[0]?.path).toBe('resources[0].connect_timeout');
    expect(server.snapshot().get(CLUSTER_TYPE).version).toBe(version);
  });
});

describe('withholding', () => {
  it.override({ mockOptions: { withholdFirst: true } });

  it('accepts the stream, sends nothing until released, then sends the current version', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const requested = new Promise((resolve) => server.events.once('request', resolve));
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await requested;
    expect(server.streams()[0]?.types.get(CLUSTER_TYPE)?.sent).toBeUndefined();
    const control = server.addresses.control;
    const res = await fetch(`http://127.0.0.1:${control?.port}/control/release`, {
      method: 'POST',
    });
    expect(await res.json()).toEqual({ released: true, withheld: false });
    const response = await stream.next();
    expect(response.version_info).toBe(server.snapshot().get(CLUSTER_TYPE).version);
  });
});

describe('the journal', () => {
  it.override({ mockOptions: { journalSize: 5 } });

  it('records requests and responses in order, filterable by node, type and kind', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const cds = await requestClusters(stream);
    ack(stream, cds);
    await server.waitForAck(CLUSTER_TYPE);
    expect(server.journal.query().map((e) => e.kind)).toEqual([
      'open',
      'subscribe',
      'response',
      'ack',
    ]);
    expect(server.journal.query({ kind: 'ack', node: '*orders-v1-0*' })).toMatchObject([
      { typeUrl: CLUSTER_TYPE, version: cds.version_info, nonce: cds.nonce },
    ]);
    stream.send({ type_url: LISTENER_TYPE });
    await stream.next();
    // Size 5: the oldest entry ("open") dropped first.
    expect(server.journal.query().map((e) => e.kind)).toEqual([
      'subscribe',
      'response',
      'ack',
      'subscribe',
      'response',
    ]);
  });
});

describe('bad requests', () => {
  // istiod hands an empty or unknown type URL to its `api` generator, which wants a verified
  // control-plane identity (conformance cases "Types without a generator: an empty type URL on
  // the first request ends the stream" and "an unknown type URL without an identity …").
  it.for([
    ['sotw', ''],
    ['delta', ''],
    ['sotw', 'type.googleapis.com/example.v1.Unknown'],
  ] as const)(
    '%s: a request for type URL "%s" without an identity ends the stream with UNAUTHENTICATED',
    async ([protocol, typeUrl], { mock: server, ads: client }) => {
      const stream = protocol === 'sotw' ? client.sotw() : client.delta();
      stream.send({ type_url: typeUrl, node: sidecarNode() });
      expect(await stream.done).toEqual({
        code: grpc.status.UNAUTHENTICATED,
        details: 'the api generator requires an authenticated control-plane identity',
      });
      expect(server.journal.query({ kind: ['open', 'close'] })).toEqual([]);
    },
  );

  // Conformance case "Types without a generator: HealthInformation after the node is consumed".
  it('consumes a HealthInformation report without answering it', async ({ ads: client }) => {
    const stream = client.sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await stream.next();
    stream.send({ type_url: 'type.googleapis.com/istio.v1.HealthInformation' });
    await expect(stream.next(300)).rejects.toThrow();
  });

  it('refuses a message over the 4 MiB limit with RESOURCE_EXHAUSTED, and keeps serving others', async ({
    ads: client,
  }) => {
    const big = client.sotw();
    big.send({
      type_url: CLUSTER_TYPE,
      node: sidecarNode(),
      resource_names: ['x'.repeat(5 * 1024 * 1024)],
    });
    const end = await big.done;
    expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(end.details).toMatch(/^grpc: received message larger than max \(\d+ vs\. 4194304\)$/);
    const ok = client.sotw();
    ok.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect((await ok.next()).type_url).toBe(CLUSTER_TYPE);
  });
});
