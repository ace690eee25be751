/**
 * The metrics of one mock istiod: a prom-client registry of its own (never the global
 * default one, so several mocks in one process keep separate counts), fed by the server's
 * events. `text()` is the Prometheus exposition served on `/metrics`.
 */
import type { AuthRefusal, CsrOutcome } from '../core/stream-auth.js';
import { Registry } from 'prom-client';
import type { RequestOutcome } from '../core/stream-state.js';
import type {
  ResponseEvent,
  ServerEventEmitter,
  ServerEvents,
  SnapshotEvent,
  StreamView,
} from '../core/events.js';
import { ConvergenceTracker } from './convergence.js';
import { createIstiodMetrics, type IstiodMetrics } from './istiod-metrics.js';
import { DEFAULT_METRIC_LIMITS, type MetricLimits } from './label-bounds.js';
import { createMockMetrics, type MetricsSources, type MockMetrics } from './mock-metrics.js';

export type { MetricsSources } from './mock-metrics.js';

export interface XdsMetrics {
  /** This server's registry: add your own metrics to it, or read values in tests. */
  readonly registry: Registry;
  /** The content type of `text()` (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** Every metric in the Prometheus text format. */
  text(): Promise<string>;
  /** Counts a fault applied (`mock_istiod_faults_applied_total{scenario}`); the fault engine calls it. */
  faultApplied(scenario: string): void;
  /** Stops listening to the server's events (the registry keeps its values). */
  detach(): void;
}

/** Creates the registry and starts counting what `events` report. */
export function createXdsMetrics(
  events: ServerEventEmitter,
  sources: MetricsSources,
  limits: MetricLimits = DEFAULT_METRIC_LIMITS,
): XdsMetrics {
  const registry = new Registry();
  const istiod = createIstiodMetrics(registry, limits);
  const mock = createMockMetrics(registry, sources, limits);
  const convergence = new ConvergenceTracker((seconds) => istiod.converged(seconds));
  const handlers = listeners(istiod, mock, convergence, sources);
  for (const [event, handler] of handlers) events.on(event, handler);
  return {
    registry,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    faultApplied: (scenario) => mock.faultApplied(scenario),
    detach() {
      for (const [event, handler] of handlers) events.off(event, handler);
    },
  };
}

type Handlers = [keyof ServerEvents, (...args: never[]) => void][];

function listeners(
  istiod: IstiodMetrics,
  mock: MockMetrics,
  convergence: ConvergenceTracker,
  sources: MetricsSources,
): Handlers {
  return [
    [
      'stream-open',
      (stream: StreamView) => istiod.opened(stream.connectionId, stream.proxy.istioVersion),
    ],
    [
      'stream-close',
      (stream: StreamView) => {
        istiod.closed(stream.connectionId);
        convergence.onClose(stream.connectionId);
      },
    ],
    ['stream-rejected', () => mock.streamRejected()],
    ['auth-refused', (refusal: AuthRefusal) => mock.authRefused(refusal)],
    ['csr', (outcome: CsrOutcome) => mock.csr(outcome)],
    [
      'request',
      (stream: StreamView, outcome: RequestOutcome) => onRequest(istiod, mock, stream, outcome),
    ],
    [
      'response',
      (stream: StreamView, response: ResponseEvent) => {
        const seconds = response.elapsedMs === undefined ? undefined : response.elapsedMs / 1000;
        istiod.pushed(response.typeUrl, seconds, response.bytes);
        convergence.onResponse(stream.connectionId, response.typeUrl);
      },
    ],
    [
      'snapshot',
      (change: SnapshotEvent) =>
        convergence.onChange(sources.streams(), change.changed, change.at.getTime()),
    ],
  ];
}

function onRequest(
  istiod: IstiodMetrics,
  mock: MockMetrics,
  stream: StreamView,
  outcome: RequestOutcome,
): void {
  if (outcome.kind === 'rejected') return;
  mock.request(outcome.typeUrl, outcome.kind);
  if (outcome.kind === 'nack') istiod.rejected(outcome.typeUrl, stream.proxy.id, outcome.nack.code);
  else if (outcome.kind === 'stale') istiod.expiredNonce(outcome.typeUrl);
}
