/**
 * The test-suite entry point: a started mock istiod on free ports, with awaitable helpers.
 *
 *   const istiod = await startMockIstiod({ withholdFirst: true });
 *   // point Envoy at istiod.xdsAddress …
 *   istiod.release();
 *   await istiod.waitForAck(LISTENER_TYPE);
 *   await istiod.close();
 */
import { createMockIstiod, type MockIstiod } from '../server/mock-istiod.js';
import type { MockIstiodOptions } from '../server/options.js';
import { waitForAck, waitForNack, type AckFilter, type Acked, type Nacked } from './waiters.js';

export interface TestMockIstiod extends MockIstiod {
  waitForAck(typeUrl: string, filter?: AckFilter): Promise<Acked>;
  waitForNack(typeUrl: string, filter?: AckFilter): Promise<Nacked>;
}

export async function startMockIstiod(
  options: Partial<MockIstiodOptions> = {},
): Promise<TestMockIstiod> {
  const server = createMockIstiod(options);
  await server.start();
  return Object.assign(server, {
    waitForAck: (typeUrl: string, filter?: AckFilter) => waitForAck(server, typeUrl, filter),
    waitForNack: (typeUrl: string, filter?: AckFilter) => waitForNack(server, typeUrl, filter),
  });
}
