/**
 * Example: a NACKed push leaves the old listener in place.
 *
 * A change whose route points at a cluster that does not exist is pushed; Envoy rejects it
 * (`listener_manager.lds.update_rejected` goes to 1, and its message comes back in the NACK),
 * and keeps the listener it had: traffic is unaffected. The second test does the same with
 * a named bad config from the `nack` scenario's catalogue, rolled back after the NACK.
 */
import { afterEach, expect, test } from 'vitest';
import { LISTENER_TYPE, makeHttpListener, makeLabResources } from 'mock-istiod';
import {
  assertNoLeaks,
  closeAll,
  freePorts,
  sidecarBootstrap,
  startEnvoy,
  startMockIstiod,
} from 'mock-istiod/testing';
import { get, startApp, type App } from './app.js';

let app: App | undefined;
afterEach(async () => {
  await closeAll();
  await app?.close();
  await assertNoLeaks();
});

async function startSidecar() {
  app = await startApp('orders');
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const lab = makeLabResources({ inboundPort, outboundPort, appPort: app.port });
  const istiod = await startMockIstiod({ resources: lab });
  const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
  await envoy.waitForState('LIVE');
  await istiod.waitForAck(LISTENER_TYPE);
  return { istiod, envoy, lab, inboundPort, orders: `http://127.0.0.1:${inboundPort}/orders` };
}

test('a NACKed push leaves the old listener in place', async () => {
  const { istiod, envoy, lab, inboundPort, orders } = await startSidecar();
  const before = await envoy.dynamicListeners();

  // The same set, but virtualInbound now routes to a cluster nobody defined.
  const broken = makeHttpListener({
    name: 'virtualInbound',
    address: '127.0.0.1',
    port: inboundPort,
    direction: 'INBOUND',
    cluster: 'reviews-v9',
  });
  const pushed = await istiod.control.setResources({
    resources: lab.map((r) => (r.name === 'virtualInbound' ? broken : r)),
  });
  // Served all the same (that is the point), and the mock says what Envoy will make of it.
  expect(pushed.warnings?.map((w) => w.message)).toEqual([
    "unknown cluster 'reviews-v9': Envoy rejects this (NACK) whenever it is sent",
  ]);

  const { nack } = await istiod.waitForNack(LISTENER_TYPE);
  expect(nack.message).toContain("route: unknown cluster 'reviews-v9'");
  await envoy.waitForStat('listener_manager.lds.update_rejected', (v) => v === 1);
  expect(await envoy.dynamicListeners()).toEqual(before);
  expect(await get(orders)).toEqual({ status: 200, body: 'hello from orders' });
});

test('a bad config from the nack catalogue is rejected, then rolled back', async () => {
  const { istiod, envoy, orders } = await startSidecar();
  const good = istiod.snapshot().get(LISTENER_TYPE).version;

  const fault = await istiod.control.inject({
    scenario: 'nack',
    params: { config: 'duplicate-address', after: 'rollback' },
  });
  await envoy.waitForStat('listener_manager.lds.update_rejected', (v) => v === 1);
  // Rolled back: Envoy accepts the last ACKed set again.
  await envoy.waitForStat('listener_manager.lds.update_success', (v) => v === 2);
  expect(await envoy.stat('listener_manager.lds.version_text')).toBe(good);
  expect((await fault.info()).counts).toMatchObject({ sent: 1, rejected: 1, rolledBack: 1 });
  expect(await get(orders)).toEqual({ status: 200, body: 'hello from orders' });
  await fault.remove();
});
