/**
 * What the HTTP routes need from the server they serve, one narrow interface per route
 * file. The control operations run against the one `OperationTarget` (src/api/target.ts,
 * made by operation-target.ts); the route files that are not operations — istiod's debug
 * views, `/metrics`, the live page — name here the little they read. The assembly
 * (src/app/mock-istiod.ts) fills them; the control API never imports it, so that it stands
 * on a floor below it (docs/architecture.md).
 */
import type { StreamView } from '../core/events.js';
import type { OperationTarget } from '../api/target.js';
import type { XdsMetrics } from '../metrics/metrics.js';
import type { SentResources } from '../journal/sent-resources.js';
import type { UiHub } from '../live/ui-hub.js';

/** istiod's debug endpoints (debug-routes.ts). */
export interface Debuggable {
  streams(): StreamView[];
  readonly withheld: boolean;
  /** What each stream was last sent, per type. */
  readonly sentResources: Pick<SentResources, 'get'>;
}

/** `/metrics` (metrics-routes.ts). */
export interface HasMetrics {
  readonly metrics: XdsMetrics;
}

/** The live page's hub, which the assembly creates and closes (ui-routes.ts). */
export interface HasUi {
  readonly ui: Pick<UiHub, 'connect' | 'listening' | 'clientInfo'>;
}

/** Everything the control API serves from, each route file's part by name. */
export interface RouteTargets {
  operations: OperationTarget;
  debug: Debuggable;
  metrics: HasMetrics;
  ui: HasUi;
}
