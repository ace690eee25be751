/**
 * Delta xDS with a real Envoy: the lab over delta serves the same traffic as over SotW, and
 * a listener removed from the set disappears from Envoy's config_dump in both protocols.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { get, startLab, type Lab } from '../support/lab.js';

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('Envoy over delta xDS', () => {
  it('reaches LIVE with the lab and serves the same traffic as over SotW', async () => {
    lab = await startLab({}, { xdsMode: 'delta' });
    await lab.envoy.waitForLive({ timeoutMs: 20_000 });
    expect(lab.istiod.streams()[0]?.protocol).toBe('delta');
    const listeners = await lab.envoy.dynamicListeners();
    expect(listeners.map((l) => `${l.name} ${l.direction} ${l.port}`).sort()).toEqual([
      `virtualInbound INBOUND ${lab.ports.inboundPort}`,
      `virtualOutbound OUTBOUND ${lab.ports.outboundPort}`,
    ]);
    expect(await get(lab.inboundUrl('/orders'))).toEqual({
      status: 200,
      body: `ok:${lab.ports.appPort} /orders`,
    });
    expect(await get(lab.outboundUrl('/'))).toEqual({ status: 503, body: 'no healthy upstream' });
    await lab.istiod.waitForAck(CLUSTER_TYPE);
    await lab.istiod.waitForAck(LISTENER_TYPE);
  });
});

describe.each(['sotw', 'delta'] as const)('removing a listener over %s', (xdsMode) => {
  it('takes it out of Envoy and closes its port', async () => {
    lab = await startLab({}, { xdsMode });
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const withoutOutbound = makeLabResources(ports).filter((r) => r.name !== 'virtualOutbound');
    const result = istiod.setResources(withoutOutbound);
    expect(result.ok && result.value.changed).toEqual([LISTENER_TYPE]);
    await istiod.waitForAck(LISTENER_TYPE);
    await waitFor(async () => (await envoy.dynamicListeners()).length === 1, {
      description: 'virtualOutbound to leave config_dump',
    });
    expect((await envoy.dynamicListeners()).map((l) => l.name)).toEqual(['virtualInbound']);
    await waitFor(async () => 'error' in (await get(lab!.outboundUrl('/'))), {
      description: 'the outbound port to stop accepting',
    });
    expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });
  });
});
