/**
 * The live page, in a real headless Chromium, for a relayed proxy: its card names the istiod
 * it is relayed to, connected, then lost while the relay holds the stream through an outage.
 */
import { afterEach, expect, it } from 'vitest';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { useBrowser } from '../support/harness/browser.js';

const browser = useBrowser();
const mocks: TestMockIstiod[] = [];
let client: AdsTestClient | undefined;
afterEach(async () => {
  client?.close();
  for (const mock of mocks.splice(0).reverse()) await mock.close();
});

it("names the proxy's istiod, connected, then lost while the relay holds the stream", async () => {
  const upstream = await startMockIstiod({ resources: makeLabResources() });
  mocks.push(upstream);
  const relay = await startMockIstiod({ relay: upstream.xdsAddress, relayOutage: 'hold' });
  mocks.push(relay);
  client = new AdsTestClient(relay.xdsAddress);
  const stream = client.sotw();
  stream.send({
    node: { id: 'sidecar~10.0.0.1~app-0.default~default.svc.cluster.local' },
    type_url: CLUSTER_TYPE,
  });
  await stream.next();
  const page = await browser.open(`http://127.0.0.1:${relay.addresses.control?.port}/ui/`);
  const POLL = { timeout: 20_000, interval: 200 };
  const shown = page.getByTestId('relay-upstream');
  await expect.poll(() => shown.getAttribute('data-connected'), POLL).toBe('true');
  expect(await shown.textContent()).toContain(upstream.xdsAddress);
  await upstream.close();
  await expect.poll(() => shown.getAttribute('data-connected'), POLL).toBe('false');
  expect(await shown.textContent()).toContain('lost');
});
