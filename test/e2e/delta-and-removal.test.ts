/**
 * Delta xDS with a real Envoy: the lab over delta serves the same traffic as over SotW, and
 * a listener removed from the set disappears from Envoy's config_dump in both protocols.
 */
import { describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { expectLabTraffic, get, useLab } from '../support/harness/lab.js';

const labs = useLab();

describe('Envoy over delta xDS', () => {
  it('reaches LIVE with the lab and serves the same traffic as over SotW', async () => {
    const lab = await labs.start({}, { xdsMode: 'delta' });
    await lab.envoy.waitForLive({ timeoutMs: 20_000 });
    expect(lab.istiod.streams()[0]?.protocol).toBe('delta');
    const listeners = await lab.envoy.dynamicListeners();
    expect(listeners.map((l) => `${l.name} ${l.direction} ${l.port}`).sort()).toEqual([
      `virtualInbound INBOUND ${lab.ports.inboundPort}`,
      `virtualOutbound OUTBOUND ${lab.ports.outboundPort}`,
    ]);
    await expectLabTraffic(lab);
    await lab.istiod.waitForAck(CLUSTER_TYPE);
    await lab.istiod.waitForAck(LISTENER_TYPE);
  });
});

describe.each(['sotw', 'delta'] as const)('removing a listener over %s', (xdsMode) => {
  it('takes it out of Envoy and closes its port', async () => {
    const lab = await labs.start({}, { xdsMode });
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const withoutOutbound = makeLabResources(ports).filter((r) => r.name !== 'virtualOutbound');
    const result = await istiod.control.setResources({ resources: withoutOutbound });
    expect(result.changed).toEqual(['LDS']);
    await istiod.waitForAck(LISTENER_TYPE);
    await waitFor(async () => (await envoy.dynamicListeners()).length === 1, {
      description: 'virtualOutbound to leave config_dump',
    });
    expect((await envoy.dynamicListeners()).map((l) => l.name)).toEqual(['virtualInbound']);
    await waitFor(async () => 'error' in (await get(lab.outboundUrl('/'))), {
      description: 'the outbound port to stop accepting',
    });
    expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });
  });
});
