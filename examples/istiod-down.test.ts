/**
 * Example: Envoy keeps serving its last configuration when istiod goes down.
 *
 * A sidecar gets its listeners and clusters from the mock istiod; then the xDS port closes
 * (the `down` fault, as when istiod's pod dies). Envoy notices — `control_plane.connected_state`
 * drops to 0 — but traffic keeps flowing with what it has. When istiod comes back, Envoy
 * reconnects and reports the version it runs.
 */
import { afterEach, expect, test } from 'vitest';
import { CLUSTER_TYPE, LISTENER_TYPE, makeLabResources } from 'mock-istiod';
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
  await closeAll(); // stops whatever a failed test left running
  await app?.close();
  await assertNoLeaks(); // fails if a stream or an Envoy outlived close()/stop()
});

test('Envoy keeps serving its last config when istiod goes down', async () => {
  app = await startApp('orders');
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const istiod = await startMockIstiod({
    resources: makeLabResources({ inboundPort, outboundPort, appPort: app.port }),
  });
  const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
  await envoy.waitForState('LIVE');
  const { version } = await istiod.waitForAck(CLUSTER_TYPE);
  const orders = `http://127.0.0.1:${inboundPort}/orders`;
  expect(await get(orders)).toEqual({ status: 200, body: 'hello from orders' });

  await istiod.control.withFault({ scenario: 'down' }, async () => {
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await get(orders)).toEqual({ status: 200, body: 'hello from orders' });
    expect((await envoy.ready()).status).toBe(200);
  });

  // Back up: Envoy reconnects on its own and says which version it already runs.
  const reconnect = await istiod.waitForRequest('CDS', { kind: 'reconnect' });
  expect(reconnect.version).toBe(version);
  await envoy.waitForStat('control_plane.connected_state', (v) => v === 1);
  await istiod.waitForAck(LISTENER_TYPE);

  await envoy.stop();
  await istiod.close();
});
