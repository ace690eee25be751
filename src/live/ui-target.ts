/**
 * What the live page's hub (ui-hub.ts) reads of the server, and how it is tuned: the room
 * views the assembly hands it (src/app/room-views.ts) and its options.
 */
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { FaultInfo } from '../faults/model.js';
import type { Journal, JournalEntry, JournalFilter } from '../journal/journal.js';
import type { UiClientOptions } from './ui-client.js';
import type { UiFaultMarker, UiSnapshot } from './ui-events.js';

export type FaultAction = UiFaultMarker['action'];
type FaultListener = (fault: FaultInfo) => void;

/** The few members of the fault engine the page reads: the faults, and word of each change. */
export interface UiFaults {
  list(): FaultInfo[];
  readonly events: {
    on(action: FaultAction, listener: FaultListener): unknown;
    off(action: FaultAction, listener: FaultListener): unknown;
  };
}

/** The live page's events : what the server does, read only while a page is open. */
export interface UiTarget {
  readonly events: ServerEventEmitter;
  readonly faults: UiFaults;
  readonly journalStore: Pick<Journal, 'addSink'>;
  journal(filter?: JournalFilter): JournalEntry[];
  streams(): StreamView[];
  readonly withheld: boolean;
  readonly serving: boolean;
}

export interface UiHubOptions {
  /** How often changes go out (default 200 ms). */
  flushMs?: number;
  /** How often admin APIs and readiness probes are polled (default 1 s). */
  pollMs?: number;
  /** Per-request deadline of a poll (default 800 ms). */
  pollTimeoutMs?: number;
  /** Journal entries per batch at most; the rest are counted as dropped (default 200). */
  maxBatch?: number;
  client?: UiClientOptions;
  /** The mock's language, the page's default (`en`, `ko`). */
  lang?: string;
  /** The addresses to show (known once the server listens). */
  addresses?: () => UiSnapshot['addresses'];
  /**
   * A failure inside the hub's own timers (the poll, a batch): reported here, never thrown
   * out of the timer, so that what one client sent cannot end the process. Default: ignored.
   */
  onError?: (what: string, err: unknown) => void;
}
