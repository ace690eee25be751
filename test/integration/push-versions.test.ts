/**
 * What a resource change and `push()` send, as istiod's full push does (conformance "Pushes",
 * test/conformance/cases/versions-pushes.ts): every type a stream watches, at one new
 * version, changed or not; with `versioning: 'per-type'`, only the types that changed.
 */
import { describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import type { AdsTestStream } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack, requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

const withExtraCluster = () => [
  ...makeLabResources(),
  makeStaticCluster({ name: 'extra', endpoints: [] }),
];

/** CDS and LDS asked for and ACKed; returns the version they were answered with. */
async function watchClustersAndListeners(stream: AdsTestStream): Promise<string> {
  const cds = await requestClusters(stream);
  ack(stream, cds);
  stream.send({ type_url: LISTENER_TYPE });
  const lds = await stream.next();
  ack(stream, lds);
  expect(lds.version_info).toBe(cds.version_info);
  return cds.version_info;
}

/** Resolves with whatever the stream sends within `ms`, or undefined. */
async function within(stream: AdsTestStream, ms: number) {
  return stream.next(ms).catch(() => undefined);
}

describe('pushes', () => {
  it('a change of one cluster re-sends CDS and LDS at one new version', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const before = await watchClustersAndListeners(stream);
    const change = await server.control.setResources({ resources: withExtraCluster() });
    expect(change.changed).toEqual(['CDS']);
    const cds = await stream.next();
    const lds = await stream.next();
    expect([cds.type_url, lds.type_url]).toEqual([CLUSTER_TYPE, LISTENER_TYPE]);
    expect(cds.version_info).not.toBe(before);
    expect(lds.version_info).toBe(cds.version_info);
  });

  it('push() is a full push: a new version for every watched type', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const before = await watchClustersAndListeners(stream);
    expect((await server.control.push()).streams).toBe(1);
    const cds = await stream.next();
    const lds = await stream.next();
    expect(cds.version_info).not.toBe(before);
    expect(lds.version_info).toBe(cds.version_info);
  });

  it('push() with a selector sends the current version again to those streams', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.sotw();
    const before = await watchClustersAndListeners(stream);
    expect((await server.control.push({ types: [LISTENER_TYPE] })).streams).toBe(1);
    const lds = await stream.next();
    expect([lds.type_url, lds.version_info]).toEqual([LISTENER_TYPE, before]);
  });

  it('delta: a change of one cluster re-sends every cluster the stream watches', async ({
    mock: server,
    ads: client,
  }) => {
    const stream = client.delta();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const first = await stream.nextDelta();
    stream.send({ type_url: CLUSTER_TYPE, response_nonce: first.nonce });
    await server.waitForAck(CLUSTER_TYPE);
    await server.control.setResources({ resources: withExtraCluster() });
    const pushed = await stream.nextDelta();
    expect(pushed.resources.map((r) => r.name).sort()).toEqual([
      'BlackHoleCluster',
      'extra',
      'inbound|8101||',
    ]);
    expect(pushed.removed_resources).toEqual([]);
    expect(pushed.system_version_info).not.toBe(first.system_version_info);
  });

  it("with versioning 'per-type', a change of one cluster re-sends CDS only", async ({
    startMock,
    connect,
  }) => {
    const server = await startMock({ versioning: 'per-type' });
    const stream = connect(server).sotw();
    const before = await watchClustersAndListeners(stream);
    await server.control.setResources({ resources: withExtraCluster() });
    const cds = await stream.next();
    expect([cds.type_url, cds.version_info === before]).toEqual([CLUSTER_TYPE, false]);
    expect(await within(stream, 300)).toBeUndefined();
  });
});
