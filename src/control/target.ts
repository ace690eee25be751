/**
 * What the control API needs from the server it controls, one narrow interface per route
 * file. The assembly (src/app/mock-istiod.ts) satisfies all of them; the control API never
 * imports it, so that it stands on a floor below it (docs/architecture.md).
 */
import type * as grpc from '@grpc/grpc-js';
import type { MockSecurity } from '../ca/security.js';
import type { StreamView } from '../core/events.js';
import type { SnapshotChange } from '../core/snapshot.js';
import type { FaultEngine } from '../faults/engine.js';
import type { StreamSelector } from '../faults/model.js';
import type { JournalEntry, JournalFilter, JournalSinkStatus } from '../journal/journal.js';
import type { XdsMetrics } from '../metrics/metrics.js';
import type { ResourceStatus } from '../resources/status.js';
import type { StoredSet } from '../snapshot/store.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';
import type { Result, ResultWithWarnings } from '../util/problems.js';
import type { SentResources } from '../journal/sent-resources.js';
import type { UiHub } from '../live/ui-hub.js';

/** Withhold and release (control-routes.ts). */
export interface Controllable {
  release(): boolean;
  withhold(): void;
  readonly withheld: boolean;
  streams(): StreamView[];
}

/** istiod's debug endpoints (debug-routes.ts). */
export interface Debuggable {
  streams(): StreamView[];
  readonly withheld: boolean;
  journal(filter?: JournalFilter): JournalEntry[];
  /** The health of the journal's sinks (a `--journal` file). */
  journalSinks(): JournalSinkStatus[];
  /** What each stream was last sent, per type. */
  readonly sentResources: Pick<SentResources, 'get'>;
}

/** Faults, per-test reset, push and disconnect (fault-routes.ts). */
export interface FaultTarget {
  readonly faults: FaultEngine;
  reset(): Promise<void>;
  push(selector?: StreamSelector): number;
  disconnect(selector?: StreamSelector, code?: grpc.status, message?: string): number;
  /** Closes the xDS port (open streams end with UNAVAILABLE); `up()` opens it again. */
  down(): Promise<void>;
  up(): Promise<void>;
  readonly serving: boolean;
  readonly withheld: boolean;
}

/** Reading, replacing and reloading the resources served (resource-routes.ts). */
export interface ResourceTarget {
  setResources(resources: readonly unknown[]): ResultWithWarnings<SnapshotChange>;
  setResourceSets(sets: readonly ResourceSetSpec[]): ResultWithWarnings<SnapshotChange[]>;
  resourceSets(): readonly StoredSet[];
  reloadResources(): Result<SnapshotChange[]>;
  resourceStatus(): ResourceStatus;
}

/** The CA's token and root certificate (ca-routes.ts). */
export interface HasSecurity {
  readonly security: MockSecurity;
}

/** `/metrics` (metrics-routes.ts). */
export interface HasMetrics {
  readonly metrics: XdsMetrics;
}

/** The live page's hub, which the assembly creates and closes (ui-routes.ts). */
export interface HasUi {
  readonly ui: Pick<UiHub, 'connect' | 'admins' | 'adminsChanged' | 'listening' | 'clientInfo'>;
}

/** Everything the control API serves from. */
export interface ControlTarget
  extends Controllable, Debuggable, FaultTarget, ResourceTarget, HasSecurity, HasMetrics, HasUi {}
