/**
 * What a mock istiod offers its users (the library, the CLI, the test helpers): its public
 * contract, apart from how src/app/mock-istiod.ts assembles it. It holds the lifecycle and
 * the rooms to read; everything that changes the mock goes through `control`, the same
 * client a remote mock is driven with (`connectMockIstiod`).
 */
import type { MockIstiodControl } from '../api/control.js';
import type { MockSecurity } from '../ca/security.js';
import type { Endpoint } from '../core/endpoint.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { Snapshot } from '../core/snapshot.js';
import type { Journal } from '../journal/journal.js';
import type { XdsMetrics } from '../metrics/metrics.js';

export interface StartedAddresses {
  xds: Endpoint;
  control: Endpoint | undefined;
}

export interface MockIstiod {
  start(): Promise<StartedAddresses>;
  /** `host:port` of the ADS server (after start). */
  readonly xdsAddress: string;
  readonly addresses: StartedAddresses;
  readonly events: ServerEventEmitter;
  /**
   * Every control operation (src/api/table.ts) as a method named as the operation, run in
   * this process: `await mock.control.withhold()`. The same interface as
   * `connectMockIstiod(url)`'s; a refusal throws `MockIstiodError` (`CONTROL_REFUSED`).
   */
  readonly control: MockIstiodControl;
  /** The default set's snapshot now. */
  snapshot(): Snapshot;
  streams(): StreamView[];
  /**
   * Every request and response so far (bounded: the oldest entries drop first): `query`
   * them, add sinks (e.g. a JSONL file), read the sinks' health, or clear it.
   */
  readonly journal: Journal;
  /** This server's Prometheus metrics (its own registry; served on `/metrics`). */
  readonly metrics: XdsMetrics;
  /** TLS and the CA after start: the root certificate, where it is, test tokens (docs/security.md). */
  readonly security: MockSecurity;
  close(): Promise<void>;
}
