/**
 * What the page renders: a plain view of the mock, built from the event stream by
 * `reduce()` (events.ts). Components read only this, never the wire format.
 */
import type { ChartData } from './chart.js';

export interface MockState {
  /** Responses are being held (withhold on). */
  withheld: boolean;
  /** The xDS port is open (false after `down`). */
  serving: boolean;
}

/** READY as kubectl prints it, or unknown when no agent tells the mock. */
export type ReadyView = { ready: number; total: number } | 'unknown';

export interface TypeRow {
  /** Short type name (CDS, LDS, …). */
  type: string;
  acked?: string;
  /** SYNCED / STALE / NOT SENT, exactly as proxy-status computes it. */
  sync: string;
}

export interface PodView {
  /** The node id: stable key of the row. */
  nodeId: string;
  name: string;
  namespace?: string;
  ready: ReadyView;
  /** Envoy's `server.state` (LIVE, PRE_INITIALIZING, …) when its admin address is known. */
  serverState?: string;
  /** Envoy's `/ready`: status code and body. */
  envoyReady?: { status: number; body: string };
  adminAddress?: string;
  types: TypeRow[];
}

export type ExchangeKind =
  | 'request'
  | 'response'
  | 'ack'
  | 'nack'
  | 'waiting'
  | 'fault'
  | 'connect'
  | 'close';

export interface ExchangeEntry {
  /** Unique and increasing. */
  seq: number;
  /** Milliseconds since the epoch. */
  time: number;
  kind: ExchangeKind;
  /** Which proxy (node id). */
  node: string;
  type?: string;
  version?: string;
  nonce?: string;
  resources?: readonly string[];
  /** Envoy's error text on a NACK; the fault's description on a fault marker. */
  detail?: string;
  /** The fault that acted here, if any. */
  fault?: string;
}

export interface FaultView {
  id: string;
  scenario: string;
  state: string;
  /** A one-line summary of its parameters and scope. */
  summary: string;
}

export interface PageState {
  mock: MockState;
  pods: PodView[];
  exchange: ExchangeEntry[];
  faults: FaultView[];
  chart: ChartData;
  nackConfigs: string[];
  /** The mock's language (`--lang`), when it says. */
  serverLang?: string;
  /** The stream skipped entries because the page fell behind. */
  gap: boolean;
}

export const EMPTY_STATE: PageState = {
  mock: { withheld: false, serving: true },
  pods: [],
  exchange: [],
  faults: [],
  chart: { times: [], series: [] },
  nackConfigs: [],
  gap: false,
};

/** The exchange keeps this many entries (older ones scroll away). */
export const EXCHANGE_LIMIT = 200;
