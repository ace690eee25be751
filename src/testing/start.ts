/**
 * The test-suite entry point: a started mock istiod on free ports, with awaitable helpers.
 *
 *   const istiod = await startMockIstiod({ withholdFirst: true });
 *   // point Envoy at istiod.xdsAddress …
 *   await istiod.control.release();
 *   await istiod.waitForAck(LISTENER_TYPE);
 *   await istiod.control.withFault({ scenario: 'down' }, async () => { … });
 *   await istiod.close();
 */
import type { JournalEntry } from '../journal/journal.js';
import { createMockIstiod } from '../app/mock-istiod.js';
import { type MockIstiod } from '../app/mock-istiod-api.js';
import type { MockIstiodOptions } from '../app/options.js';
import { expectNoResponse, waitForRequest, type RequestFilter } from './fault-helpers.js';
import { track } from './leaks.js';
import { waitForAck, waitForNack, type AckFilter, type Acked, type Nacked } from './waiters.js';

export interface TestMockIstiod extends MockIstiod {
  waitForAck(typeUrl: string, filter?: AckFilter): Promise<Acked>;
  waitForNack(typeUrl: string, filter?: AckFilter): Promise<Nacked>;
  /** The first request of a type (`LDS` or a type URL) matching the filter, past or future. */
  waitForRequest(type: string, filter?: RequestFilter): Promise<JournalEntry>;
  /** Resolves after `ms` if no response of the type went out; rejects at the first one. */
  expectNoResponse(type: string, ms: number, options?: { node?: string }): Promise<void>;
}

export async function startMockIstiod(
  options: Partial<MockIstiodOptions> = {},
): Promise<TestMockIstiod> {
  const server = createMockIstiod(options);
  let closed = false;
  const close = server.close.bind(server);
  // The address is unknown when start() failed; then there is no port to check.
  const startedXds = () => {
    try {
      return server.addresses.xds;
    } catch {
      return undefined;
    }
  };
  const closedAndChecked = track({
    kind: 'mock',
    name: 'mock istiod',
    closed: () => closed,
    openStreams: () => server.streams().length,
    xds: () => (closed ? startedXds() : undefined),
    close: () => server.close(),
  });
  server.close = async () => {
    await close();
    closed = true;
    closedAndChecked();
  };
  await server.start();
  return Object.assign(server, {
    waitForAck: (typeUrl: string, filter?: AckFilter) => waitForAck(server, typeUrl, filter),
    waitForNack: (typeUrl: string, filter?: AckFilter) => waitForNack(server, typeUrl, filter),
    waitForRequest: (type: string, filter?: RequestFilter) => waitForRequest(server, type, filter),
    expectNoResponse: (type: string, ms: number, opts?: { node?: string }) =>
      expectNoResponse(server, type, ms, opts),
  });
}
