/**
 * EDS and RDS with a real Envoy: the lab served with the app's endpoints over EDS and the
 * routes over RDS (in both protocols), endpoints that move real traffic, and an EDS cluster
 * whose endpoints the set lacks: sent an empty ClusterLoadAssignment as istiod does, or, with
 * `omitMissingResources`, nothing (Envoy stays initializing until the endpoints come).
 */
import { describe, expect, it } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { makeClusterLoadAssignment } from '../../src/resources/endpoint.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import type { EnvoyResource } from '../../src/resources/types.js';
import { ENDPOINT_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
import { expectLabTraffic, get, useLab } from '../support/harness/lab.js';

const labs = useLab();

describe.each(['sotw', 'delta'] as const)('the EDS + RDS lab over %s', (xdsMode) => {
  it('serves the lab traffic, and new endpoints move it', async () => {
    const lab = await labs.start({}, { xdsMode, discovery: 'eds-rds' });
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(ENDPOINT_TYPE);
    await istiod.waitForAck(ROUTE_TYPE);
    await expectLabTraffic(lab);

    const second = await startLabUpstream({ mode: 'ok', port: 0 });
    try {
      const clusterName = `inbound|${ports.appPort}||`;
      const resources = makeLabResources(ports).map((r) =>
        r['@type'] === ENDPOINT_TYPE
          ? makeClusterLoadAssignment({
              clusterName,
              endpoints: [{ address: '127.0.0.1', port: second.port }],
            })
          : r,
      );
      const result = await istiod.control.setResources({ resources });
      expect(result.changed).toEqual(['EDS']);
      await waitFor(
        async () => {
          const res = await get(lab.inboundUrl('/orders'));
          return 'body' in res && res.body === `ok:${second.port} /orders`;
        },
        { description: 'traffic to move to the new endpoint' },
      );
    } finally {
      await second.close();
    }
  });
});

describe('an EDS cluster without a ClusterLoadAssignment in the set', () => {
  const withoutEndpoints = (resources: EnvoyResource[]) =>
    resources.filter((r) => r['@type'] !== ENDPOINT_TYPE);

  it('is sent an empty one, as istiod does: Envoy goes live with no endpoint to send to', async () => {
    // Conformance: "SotW: names that do not exist: EDS: an unknown name is answered with an
    // empty ClusterLoadAssignment of that name". The cluster does not warm for ever.
    const lab = await labs.start({}, { discovery: 'eds-rds', transform: withoutEndpoints });
    const { envoy, istiod, ports } = lab;
    await istiod.waitForAck(ENDPOINT_TYPE);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect(await envoy.stat('cluster_manager.warming_clusters')).toBe(0);
    expect(await get(lab.inboundUrl('/orders'))).toEqual({
      status: 503,
      body: 'no healthy upstream',
    });

    await istiod.control.setResources({
      resources: makeLabResources({ ...ports, discovery: 'eds-rds' }),
    });
    await waitFor(
      async () => {
        const res = await get(lab.inboundUrl('/orders'));
        return 'status' in res && res.status === 200;
      },
      { description: 'traffic once the endpoints are served' },
    );
  });

  it('with omitMissingResources, keeps Envoy initializing (warming) until it arrives', async () => {
    const lab = await labs.start(
      { omitMissingResources: true },
      { discovery: 'eds-rds', transform: withoutEndpoints },
    );
    const { envoy, istiod, ports } = lab;
    // Envoy's own word for this state is PRE_INITIALIZING: a cluster warming in the CDS phase
    // holds the whole server before its init manager starts (docs/envoy-facts.md).
    await istiod.waitForAck(ENDPOINT_TYPE);
    await waitFor(async () => (await envoy.stat('cluster_manager.warming_clusters')) === 1, {
      description: 'the EDS cluster to be warming',
    });
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    expect(await envoy.stat('cluster_manager.warming_clusters')).toBe(1);
    expect(await get(lab.inboundUrl('/orders'))).toEqual({ error: 'ECONNREFUSED' });

    await istiod.control.setResources({
      resources: makeLabResources({ ...ports, discovery: 'eds-rds' }),
    });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect(await envoy.stat('cluster_manager.warming_clusters')).toBe(0);
    expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });
  });
});
