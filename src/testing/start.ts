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
import type { FaultHandle } from '../faults/engine.js';
import type { FaultSpec } from '../faults/model.js';
import type { JournalEntry } from '../journal/journal.js';
import { createMockIstiod } from '../app/mock-istiod.js';
import { type MockIstiod } from '../app/mock-istiod-api.js';
import { targetOf } from '../target/operation-target.js';
import type { MockIstiodOptions } from '../app/options.js';
import {
  expectNoResponse,
  waitForRequest,
  withFault,
  type RequestFilter,
} from './fault-helpers.js';
import { track } from './leaks.js';
import { waitForAck, waitForNack, type AckFilter, type Acked, type Nacked } from './waiters.js';

export interface TestMockIstiod extends MockIstiod {
  waitForAck(typeUrl: string, filter?: AckFilter): Promise<Acked>;
  waitForNack(typeUrl: string, filter?: AckFilter): Promise<Nacked>;
  /** Applies a fault; throws `MockIstiodError` (`INVALID_FAULT`) naming every bad field. */
  inject(fault: FaultSpec): Promise<FaultHandle>;
  /** Applies a fault while `fn` runs and removes it afterwards, even when `fn` throws. */
  withFault<T>(fault: FaultSpec, fn: (fault: FaultHandle) => Promise<T> | T): Promise<T>;
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
  // The fault handles here are the engine's own (`whenActive`, a listing read at once); the
  // same faults are reachable, as JSON, through `control.inject`.
  const { faults } = targetOf(server);
  return Object.assign(server, {
    waitForAck: (typeUrl: string, filter?: AckFilter) => waitForAck(server, typeUrl, filter),
    waitForNack: (typeUrl: string, filter?: AckFilter) => waitForNack(server, typeUrl, filter),
    inject: (fault: FaultSpec) => faults.inject(fault),
    withFault: <T>(fault: FaultSpec, fn: (fault: FaultHandle) => Promise<T> | T) =>
      withFault(faults, fault, fn),
    waitForRequest: (type: string, filter?: RequestFilter) => waitForRequest(server, type, filter),
    expectNoResponse: (type: string, ms: number, opts?: { node?: string }) =>
      expectNoResponse(server, type, ms, opts),
  });
}
