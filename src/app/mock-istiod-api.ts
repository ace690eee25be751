/**
 * What a mock istiod offers its users (the library, the CLI, the test helpers): its public
 * contract, apart from how src/app/mock-istiod.ts assembles it.
 */
import type * as grpc from '@grpc/grpc-js';
import type { OperationTarget } from '../api/target.js';
import type { MockSecurity } from '../ca/security.js';
import type { SentResources } from '../journal/sent-resources.js';
import type { Endpoint } from '../core/endpoint.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { Snapshot, SnapshotChange } from '../core/snapshot.js';
import type { FaultEngine } from '../faults/engine.js';
import type { StreamSelector } from '../faults/model.js';
import type {
  Journal,
  JournalEntry,
  JournalFilter,
  JournalSinkStatus,
} from '../journal/journal.js';
import type { XdsMetrics } from '../metrics/metrics.js';
import type { ResourceStatus } from '../resources/status.js';
import type { SetPins, StoredSet } from '../snapshot/store.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';
import type { Result, ResultWithWarnings } from '../util/problems.js';
import type { Lang } from '../util/lang.js';

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
   * Replaces the resource set; on problems nothing changes and the last good set keeps
   * serving. References Envoy will reject (NACK) or wait on for ever are served all the same
   * and reported as `warnings` (docs/resources.md). `pins` names the version each type is
   * served with (`{ versions: { CDS: '2' } }`) and, in delta, each resource (`resourceVersions`);
   * types not named get the push's version, as istiod's.
   */
  setResources(resources: readonly unknown[], pins?: SetPins): ResultWithWarnings<SnapshotChange>;
  /** Replaces every resource set (sets with a node selector, and a default), all or nothing. */
  setResourceSets(sets: readonly ResourceSetSpec[]): ResultWithWarnings<SnapshotChange[]>;
  /** The sets now serving, in selection order. */
  resourceSets(): readonly StoredSet[];
  /** Loads the resource files again (with `resourcesPath`); errors keep the last good sets. */
  reloadResources(): Result<SnapshotChange[]>;
  /** Where resources come from and how the last load went. */
  resourceStatus(): ResourceStatus;
  snapshot(): Snapshot;
  /** Holds every response until `release()`. */
  withhold(): void;
  /** Lets held responses go (each stream gets the current version); true if something was held. */
  release(): boolean;
  readonly withheld: boolean;
  /** The language its users asked for (the `lang` option): the live page's default. */
  readonly lang: Lang;
  streams(): StreamView[];
  /** Every request and response so far (bounded: the oldest entries drop first). */
  journal(filter?: JournalFilter): JournalEntry[];
  /** The health of the journal's sinks that report it (`GET /debug/journal/sinks`). */
  journalSinks(): JournalSinkStatus[];
  /** The journal itself, to add sinks (e.g. a JSONL file) or clear it. */
  readonly journalStore: Journal;
  /** This server's Prometheus metrics (its own registry; served on `/metrics`). */
  readonly metrics: XdsMetrics;
  /** What each stream was last sent, per type (`/debug/config_dump`). */
  readonly sentResources: SentResources;
  /**
   * What the control operations run against (src/api/table.ts): the HTTP control API and
   * the in-process control client (`localControl`) both run them on this.
   */
  readonly operations: OperationTarget;
  /** Faults applied to this server: apply, list, remove (docs/faults.md). */
  readonly faults: FaultEngine;
  /** Sends the current version again to the chosen streams (default: all); returns how many. */
  push(selector?: StreamSelector): number;
  /** Ends the chosen streams (default: all) with a gRPC status; returns how many. */
  disconnect(selector?: StreamSelector, code?: grpc.status, message?: string): number;
  /** Closes the xDS port: connections are refused until `up()`; versions are kept. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Whether the xDS port accepts connections. */
  readonly serving: boolean;
  /** Per-test cleanup: no faults, nothing held, port up, start-up resources, empty journal. */
  reset(): Promise<void>;
  /** TLS and the CA after start: the root certificate, where it is, test tokens (docs/security.md). */
  readonly security: MockSecurity;
  close(): Promise<void>;
}
