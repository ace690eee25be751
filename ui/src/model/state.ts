/**
 * What the page holds: the latest snapshot of the mock, kept current by the stream's events
 * (reduce.ts). Components read only this.
 */
import type {
  UiAdmin,
  UiCatalogue,
  UiFault,
  UiFaultMarker,
  UiJournalEntry,
  UiProxy,
  UiServerState,
  UiStatSample,
} from '../../../src/live/ui-events.js';

/** One row of the sequence diagram: a journal entry, or a fault's step. */
export type ExchangeItem =
  | { key: string; time: number; entry: UiJournalEntry }
  | { key: string; time: number; marker: UiFaultMarker };

/** A proxy row; `gone` once its stream ended (kept, with what was last known, until it returns). */
export type ProxyRow = UiProxy & { gone?: boolean };

export interface PageState {
  /** A snapshot has arrived (until then the page says it is connecting). */
  received: boolean;
  state: UiServerState;
  /** istioctl's type columns, in order, as the server's snapshot names them (its type registry). */
  columns: string[];
  proxies: ProxyRow[];
  faults: UiFault[];
  exchange: ExchangeItem[];
  samples: UiStatSample[];
  admins: UiAdmin[];
  catalogue: UiCatalogue;
  /** The mock's language (`--lang`), when the snapshot says. */
  lang?: string;
  /** Entries the stream left out since the page opened (it fell behind, or a push was big). */
  dropped: number;
}

export const EMPTY_STATE: PageState = {
  received: false,
  state: { withheld: false, serving: true },
  // The snapshot, always the stream's first event, brings the columns (src/control/ui-views.ts).
  columns: [],
  proxies: [],
  faults: [],
  exchange: [],
  samples: [],
  admins: [],
  catalogue: { scenarios: [], nacks: [] },
  dropped: 0,
};

/** Rows of proxies whose stream ended, kept at most. */
export const GONE_LIMIT = 4;

/** The diagram keeps this many rows; the chart this many samples (all admins together). */
export const EXCHANGE_LIMIT = 300;
export const SAMPLE_LIMIT = 600;
