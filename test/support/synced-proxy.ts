/**
 * A mock with one proxy played by `AdsTestClient`: CDS ACKed (SYNCED), LDS answered and never
 * ACKed (STALE). For tests of what the client commands show about a proxy.
 */
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { handshake } from './handshake.js';

/** Starts them, and pushes their clean-ups onto `cleanups` (run last-first by the test). */
export async function mockWithProxy(
  cleanups: (() => Promise<void> | void)[],
  options: Parameters<typeof startMockIstiod>[0] = {},
): Promise<TestMockIstiod> {
  const server = await startMockIstiod(options);
  const client = new AdsTestClient(server.xdsAddress);
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  await handshake(client.sotw());
  await server.waitForAck(CLUSTER_TYPE);
  return server;
}
