/**
 * The core acceptance: a real Envoy, bootstrapped like a sidecar, gets the lab's listeners
 * and clusters over ADS from the mock, serves real traffic with them, and behaves as the
 * course material says when the control plane withholds, goes away, comes back and pushes.
 */
import { describe, expect, it } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { expectLabTraffic, get, makeBrokenInbound, useLab } from '../support/harness/lab.js';

const labs = useLab();

describe('a sidecar Envoy fed by mock-istiod', () => {
  it('reaches LIVE with the lab listeners and clusters and serves the lab traffic', async () => {
    const lab = await labs.start();
    await lab.envoy.waitForLive({ timeoutMs: 20_000 });
    expect((await lab.envoy.ready()).status).toBe(200);
    expect(await lab.envoy.stat('listener_manager.workers_started')).toBe(1);
    const listeners = await lab.envoy.dynamicListeners();
    expect(listeners.map((l) => `${l.name} ${l.direction} ${l.port}`).sort()).toEqual([
      `virtualInbound INBOUND ${lab.ports.inboundPort}`,
      `virtualOutbound OUTBOUND ${lab.ports.outboundPort}`,
    ]);
    expect((await lab.envoy.dynamicActiveClusters()).sort()).toEqual([
      'BlackHoleCluster',
      `inbound|${lab.ports.appPort}||`,
    ]);
    await expectLabTraffic(lab);
    await lab.istiod.waitForAck(CLUSTER_TYPE);
    await lab.istiod.waitForAck(LISTENER_TYPE);
  });

  it('while withheld stays PRE_INITIALIZING and connected, then goes LIVE on release', async () => {
    const lab = await labs.start({ withholdFirst: true });
    const { envoy, istiod } = lab;
    await waitFor(async () => (await envoy.stat('control_plane.connected_state')) === 1, {
      description: 'control_plane.connected_state 1',
    });
    // Envoy counts itself connected when its stream opens; the mock sees the stream with its
    // first request, a moment later.
    await waitFor(() => istiod.streams().length === 1, {
      description: 'the mock to see the stream',
    });
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    expect(await envoy.stat('cluster_manager.cds.update_success')).toBe(0);
    expect(await get(lab.inboundUrl('/orders'))).toEqual({ error: 'ECONNREFUSED' });

    expect((await istiod.control.release()).released).toBe(true);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });
  });

  it('keeps serving the last config when the mock goes away, and reconnects with its version', async () => {
    const lab = await labs.start();
    const { envoy } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const acked = await lab.istiod.waitForAck(LISTENER_TYPE);

    await lab.istiod.close();
    await waitFor(async () => (await envoy.stat('control_plane.connected_state')) === 0, {
      description: 'control_plane.connected_state 0 after the mock stopped',
    });
    expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });

    const istiod = await lab.restartIstiod();
    // The journal keeps a reconnect that came while restartIstiod was still starting up.
    const reconnect = await istiod.waitForRequest('CDS', { kind: 'reconnect', timeoutMs: 15_000 });
    expect(reconnect.version).toBe(acked.version);
    await waitFor(async () => (await envoy.stat('control_plane.connected_state')) === 1);
    await istiod.waitForAck(LISTENER_TYPE);
  });

  it('applies a pushed change (traffic follows it) and records a push Envoy rejects as a NACK', async () => {
    const lab = await labs.start();
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const second = await startLabUpstream({ mode: 'ok', port: 0 });
    try {
      await istiod.control.setResources({
        resources: makeLabResources({ ...ports, appPort: second.port }),
      });
      await istiod.waitForAck(CLUSTER_TYPE);
      await istiod.waitForAck(LISTENER_TYPE);
      await waitFor(
        async () => {
          const res = await get(lab.inboundUrl('/orders'));
          return 'body' in res && res.body === `ok:${second.port} /orders`;
        },
        { description: 'traffic to follow the new inbound cluster' },
      );
    } finally {
      await second.close();
    }

    const goodListeners = await envoy.dynamicListeners();
    const bad = makeBrokenInbound(ports.inboundPort);
    // The whole lab set with virtualInbound replaced: an LDS response missing a listener
    // would remove that listener even though Envoy NACKs the response.
    const lab2 = makeLabResources({ ...ports, appPort: second.port });
    const clusters = lab2.filter((r) => r['@type'] === CLUSTER_TYPE);
    const outbound = lab2.filter((r) => r.name === 'virtualOutbound');
    await istiod.control.setResources({ resources: [...clusters, ...outbound, bad] });
    const { nack } = await istiod.waitForNack(LISTENER_TYPE);
    expect(nack.message).toContain("unknown cluster 'no-such-cluster'");
    await waitFor(async () => (await envoy.stat('listener_manager.lds.update_rejected')) === 1);
    expect(await envoy.dynamicListeners()).toEqual(goodListeners);

    // A later CDS change is a full push, as istiod's: CDS is ACKed, and the rejected LDS is
    // sent again at the new version (conformance "Pushes: a push re-sends a type the proxy
    // NACKed"), which Envoy rejects again, keeping its listeners.
    const ldsNonce = istiod.streams()[0]?.types.get(LISTENER_TYPE)?.sent?.nonce;
    const extra = makeStaticCluster({ name: 'extra', endpoints: [] });
    await istiod.control.setResources({ resources: [...clusters, extra, ...outbound, bad] });
    await istiod.waitForAck(CLUSTER_TYPE);
    await waitFor(async () => (await envoy.stat('listener_manager.lds.update_rejected')) === 2);
    expect(istiod.streams()[0]?.types.get(LISTENER_TYPE)?.sent?.nonce).not.toBe(ldsNonce);
    expect(await envoy.dynamicListeners()).toEqual(goodListeners);
  });
});
