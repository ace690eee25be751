/**
 * withhold and partial against a real Envoy: with every type held a sidecar stays
 * PRE_INITIALIZING while connected; with only LDS held (withhold scoped to LDS, or partial
 * answering CDS) it gets its clusters and stays INITIALIZING; releasing lets it go LIVE.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { assertNoLeaks } from '../../src/testing/leaks.js';
import { waitFor } from '../../src/util/wait.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { closeFaultLabs, get, startFaultLab, type FaultLab } from '../support/harness/fault-lab.js';

afterEach(async () => {
  await closeFaultLabs();
  await assertNoLeaks();
});

async function expectInitializingWithClusters(lab: FaultLab): Promise<void> {
  const { envoy } = lab;
  await envoy.waitForStat('cluster_manager.cds.update_success', (v) => v === 1);
  await lab.connected(1);
  await lab.istiod.waitForRequest('LDS');
  expect(await envoy.ready()).toEqual({ status: 503, body: 'INITIALIZING' });
  expect(await lab.stat('listener_manager.lds.update_success')).toBe(0);
  expect((await envoy.dynamicActiveClusters()).sort()).toEqual([
    'BlackHoleCluster',
    `inbound|${lab.ports.appPort}||`,
  ]);
  expect(await get(lab.inboundUrl())).toEqual({ error: 'ECONNREFUSED' });
}

describe('withhold', () => {
  it('of every type keeps Envoy PRE_INITIALIZING and connected until released', async () => {
    const lab = await startFaultLab({ faults: [{ scenario: 'withhold', id: 'hold' }] });
    await lab.connected(1);
    await lab.istiod.waitForRequest('CDS');
    await lab.istiod.expectNoResponse('CDS', 500);
    expect(await lab.envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    expect(await lab.stat('cluster_manager.cds.update_success')).toBe(0);
    expect((await lab.istiod.control.getFault({ id: 'hold' })).fault?.counts.held).toBeGreaterThan(
      0,
    );

    expect((await lab.istiod.control.release()).released).toBe(true);
    expect((await lab.istiod.control.listFaults()).faults).toEqual([]);
    await lab.envoy.waitForState('LIVE', { timeoutMs: 20_000 });
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
  });

  it('of LDS only lets the clusters in and keeps Envoy INITIALIZING until removed', async () => {
    const lab = await startFaultLab({
      faults: [{ scenario: 'withhold', id: 'lds', scope: { types: ['LDS'] } }],
    });
    await expectInitializingWithClusters(lab);
    await lab.istiod.control.removeFault({ id: 'lds' });
    await lab.envoy.waitForState('LIVE', { timeoutMs: 20_000 });
    await lab.istiod.waitForAck(LISTENER_TYPE);
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
  });

  it('scoped to another node leaves this Envoy alone', async () => {
    const lab = await startFaultLab({
      faults: [{ scenario: 'withhold', scope: { node: 'sidecar~*~reviews-*' } }],
      live: true,
    });
    expect(await get(lab.inboundUrl())).toMatchObject({ status: 200 });
    expect((await lab.istiod.control.listFaults()).faults[0]?.counts).toEqual({});
  });
});

describe('partial', () => {
  it('answering CDS only holds LDS: INITIALIZING, then LIVE on release', async () => {
    const lab = await startFaultLab({
      faults: [{ scenario: 'partial', params: { answer: ['CDS'] } }],
    });
    await expectInitializingWithClusters(lab);
    expect((await lab.istiod.control.release()).released).toBe(true);
    await lab.envoy.waitForState('LIVE', { timeoutMs: 20_000 });
    await waitFor(async () => (await lab.stat('listener_manager.lds.update_success')) === 1, {
      description: 'lds.update_success 1',
    });
  });
});
