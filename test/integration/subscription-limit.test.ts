/**
 * The names a stream subscribes are the client's to choose, and a delta stream adds to them
 * with every request: past `maxSubscriptions` (default DEFAULT_MAX_SUBSCRIPTIONS) the
 * stream ends with RESOURCE_EXHAUSTED and says why, and the mock goes on serving others.
 * Through the real xDS port with the library's ADS client.
 */
import * as grpc from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { DEFAULT_MAX_SUBSCRIPTIONS } from '../../src/protocol/session.js';
import type { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it, test } from '../support/fixtures/test.js';

const LIMIT = 10;
const OTHER_TYPES = [
  'istio.networking.nds.v1.NameTable',
  'istio.mesh.v1alpha1.ProxyConfig',
  'istio.workload.Address',
  'istio.workload.Workload',
  'istio.security.Authorization',
];
const names = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `outbound|80||svc-${from + i}.default.svc.cluster.local`);

const TOO_MANY = new RegExp(
  `^too many subscriptions on one stream: \\d+ resource names (and types|in one request), more than the limit of (${LIMIT}|${DEFAULT_MAX_SUBSCRIPTIONS}) \\(option maxSubscriptions, serve --max-subscriptions\\)$`,
);

/** A fresh stream still gets its clusters: the mock lives and serves. */
async function stillServes(ads: AdsTestClient): Promise<void> {
  const fresh = ads.sotw();
  fresh.send({ type_url: CLUSTER_TYPE, node: sidecarNode('fresh-0') });
  expect((await fresh.next()).resources.length).toBeGreaterThan(0);
}

describe('subscriptions per stream', () => {
  describe(`with maxSubscriptions ${LIMIT}`, () => {
    test.override({ mockOptions: { maxSubscriptions: LIMIT } });

    it('ends a delta stream whose subscribes add up past the limit, with RESOURCE_EXHAUSTED', async ({
      ads,
    }) => {
      const stream = ads.delta();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      await stream.nextDelta();
      // CDS counts what was sent (2 clusters); 6 names of EDS fit, 6 more do not.
      stream.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: names(0, 6) });
      expect((await stream.nextDelta()).resources).toHaveLength(6);
      stream.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: names(6, 6) });
      const end = await stream.done;
      expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(end.details).toMatch(TOO_MANY);
      await stillServes(ads);
    });

    it('ends a SotW stream whose one request names more than the limit', async ({ ads }) => {
      const stream = ads.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      await stream.next();
      stream.send({ type_url: ENDPOINT_TYPE, resource_names: names(0, LIMIT + 1) });
      const end = await stream.done;
      expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(end.details).toMatch(TOO_MANY);
      await stillServes(ads);
    });

    it('counts each type watched with no names as one', async ({ ads }) => {
      const stream = ads.sotw();
      // CDS and LDS (wildcards) and istiod's five other generated types: 7; then 4 routes.
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
      stream.send({ type_url: LISTENER_TYPE });
      for (const type of OTHER_TYPES) stream.send({ type_url: `type.googleapis.com/${type}` });
      stream.send({ type_url: ROUTE_TYPE, resource_names: ['80', '8080', '9080', '15010'] });
      const end = await stream.done;
      expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(end.details).toMatch(/: 11 resource names and types, more than the limit of 10 /);
    });
  });

  it(`by default ends a delta stream past ${DEFAULT_MAX_SUBSCRIPTIONS} names`, async ({ ads }) => {
    const stream = ads.delta();
    stream.send({
      type_url: ENDPOINT_TYPE,
      node: sidecarNode(),
      resource_names_subscribe: Array.from(
        { length: DEFAULT_MAX_SUBSCRIPTIONS + 1 },
        (_, i) => `e${i}`,
      ),
    });
    const end = await stream.done;
    expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(end.details).toMatch(TOO_MANY);
    await stillServes(ads);
  });
});
