/**
 * What the rooms below read of the running server, each as its own small object filling the
 * narrow interface that room declares: metrics (`MetricsSources`), istiod's debug types over
 * ADS (`DebugXdsSource`) and the live page's hub (`UiTarget`). None of them is handed the
 * assembly itself, so none can reach past what its interface names.
 */
import { debugEndpointBody } from '../control/debug-endpoint.js';
import type { Debuggable } from '../control/target.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { DebugXdsSource } from '../debug/debug-xds.js';
import type { Journal } from '../journal/journal.js';
import type { SentResources } from '../journal/sent-resources.js';
import type { UiFaults, UiTarget } from '../live/ui-target.js';
import type { MetricsSources } from '../metrics/metrics.js';

/** The server's state as the assembly holds it, read through the views below. */
export interface ServerState {
  readonly events: ServerEventEmitter;
  readonly journal: Journal;
  /** Whether every response is being withheld. */
  readonly withholdSwitch: { readonly withheld: boolean };
  streams(): StreamView[];
}

export function metricsSources(state: ServerState): MetricsSources {
  return {
    streams: () => state.streams(),
    get withheld() {
      return state.withholdSwitch.withheld;
    },
    journalSinks: () => state.journal.sinkStatus(),
  };
}

/** What `/debug/…` reads, for running those endpoints in process. */
export function debuggable(state: ServerState, sent: Pick<SentResources, 'get'>): Debuggable {
  return {
    streams: () => state.streams(),
    get withheld() {
      return state.withholdSwitch.withheld;
    },
    sentResources: sent,
  };
}

export function debugXdsSource(
  state: ServerState,
  sent: Pick<SentResources, 'get'>,
): DebugXdsSource {
  return {
    streams: () => state.streams(),
    sentTo: (connectionId) => sent.get(connectionId),
    endpointBody: debugEndpointBody(debuggable(state, sent)),
  };
}

export function uiTarget(
  state: ServerState,
  faults: UiFaults,
  host: { readonly serving: boolean },
): UiTarget {
  return {
    events: state.events,
    faults,
    journalStore: state.journal,
    journal: (filter) => state.journal.query(filter),
    streams: () => state.streams(),
    get withheld() {
      return state.withholdSwitch.withheld;
    },
    get serving() {
      return host.serving;
    },
  };
}
