/**
 * The contract between the mock and its live page (`/ui`): the events of the server-sent
 * stream `GET /ui/events`. Types only, shared by the server (src/live/ui-*.ts) and the
 * page (ui/), so that neither can drift from the other.
 *
 * The stream opens with one `snapshot` event holding everything the page shows; then
 * incremental events follow, each an SSE event whose `event:` line is the `type` below and
 * whose `data:` line is the JSON of `data`. When the page falls behind (its socket stops
 * draining), the server drops incremental events instead of queueing them, and once the
 * socket drains again it sends a `gap` event and a fresh `snapshot`: a page that receives a
 * `snapshot` replaces all it holds. After a reconnect (EventSource does it by itself, after
 * the `retry:` delay the server sets) the first event is again a `snapshot`.
 *
 * Compatibility: fields and event types are only ever added; `UI_EVENTS_VERSION` goes up
 * when they are, and a page ignores event types and fields it does not know.
 */

/**
 * The version of this contract, sent in every `snapshot`. 1: the first; 2: `lang` in the
 * snapshot; 3: `trimmed` in the snapshot.
 */
export const UI_EVENTS_VERSION = 3;

/** The SSE event names, one per member of {@link UiEvent}. */
export const UI_EVENT_TYPES = [
  'snapshot',
  'proxies',
  'proxy-gone',
  'journal',
  'stats',
  'faults',
  'fault',
  'state',
  'admins',
  'gap',
] as const;
export type UiEventType = (typeof UI_EVENT_TYPES)[number];

/** Per type, what `istioctl proxy-status` prints (`IGNORED`: never asked for). */
export type UiSyncStatus = 'SYNCED' | 'NOT SENT' | 'STALE' | 'ERROR' | 'IGNORED';

/** One resource type of one proxy: its proxy-status cell and the versions behind it. */
export interface UiTypeStatus {
  /** `CDS`, `LDS`, `EDS`, `RDS`, `ECDS`, … */
  type: string;
  typeUrl: string;
  /** Computed by the same builder as `mock-istiod proxy-status` (istiod's debugSyncStatus). */
  status: UiSyncStatus;
  /** `'*'` for a wildcard subscription, else the names asked for. */
  names: '*' | string[];
  sentVersion?: string;
  sentNonce?: string;
  /** ISO time of the last response. */
  sentAt?: string;
  ackedVersion?: string;
  /** The last NACK, until the next ACK: Envoy's `error_detail.message`. */
  nack?: { version: string; message: string; at: string };
}

/**
 * The pod's READY column as `kubectl get pod` would show it: the app container counts as
 * ready, the sidecar when its readiness probe passes. `unknown` when the mock cannot probe it
 * (no `ENVOY_STATUS_PORT` in the node metadata, or the proxy is not on this machine), or when
 * Envoy answers the probe itself because no agent is behind its listener. The page's badge
 * (ui/src/model/ready.ts) then falls back on Envoy's `/ready`, or shows `?`.
 */
export type UiReady = '1/2' | '2/2' | 'unknown';

/** What Envoy's admin API says, when its address is known (else `admin` is undefined). */
export interface UiEnvoyState {
  /** `http://127.0.0.1:15000`. */
  admin?: string;
  /** Where the address came from. */
  adminSource?: UiAdminSource;
  /** `/server_info`'s `state`: `LIVE`, `PRE_INITIALIZING`, `INITIALIZING`, `DRAINING`. */
  state?: string;
  /** `GET /ready`: 200 `LIVE`, or 503 and the state. */
  ready?: { status: number; body: string };
  /** Why the admin API could not be read (the last poll failed). */
  error?: string;
  /** ISO time of the last successful poll. */
  polledAt?: string;
}

/** One connected proxy: a row of the page's pod table. */
export interface UiProxy {
  connectionId: string;
  nodeId: string;
  /** istiod's proxy id, `<pod>.<namespace>`. */
  proxy: string;
  /** The pod name (`<pod>` of the proxy id). */
  name: string;
  namespace: string;
  clusterId: string;
  istioVersion: string;
  protocol: 'sotw' | 'delta';
  /**
   * A gRPC application's own xDS client (`GENERATOR: grpc`): no Envoy, so no admin API, stats or
   * readiness probe; the page shows its stream only.
   */
  proxyless: boolean;
  /** A relayed stream's istiod (`serve --relay`): its address, and whether it answers. */
  upstream?: { address: string; connected: boolean };
  peer: string;
  connectedAt: string;
  ready: UiReady;
  /** The readiness probe's last outcome: `200`, `HTTP probe failed with statuscode: 503`, … */
  readyDetail?: string;
  envoy: UiEnvoyState;
  /** In istioctl's column order (CDS LDS EDS RDS ECDS), then any other type subscribed. */
  types: UiTypeStatus[];
}

/** Where an admin address came from: node metadata, Istio's PROXY_CONFIG, or the page. */
export type UiAdminSource = 'metadata' | 'proxy-config' | 'user';

/** An Envoy admin API the mock polls while a page is open. */
export interface UiAdmin {
  /** `http://127.0.0.1:15000`. */
  admin: string;
  source: UiAdminSource;
  /** The node id `/server_info` reported (or the metadata's proxy), once known. */
  nodeId?: string;
  reachable: boolean;
  error?: string;
}

/**
 * One poll of one admin API: the stats the chart draws, by Envoy's names
 * (`control_plane.connected_state`, `cluster_manager.cds.update_success`,
 * `listener_manager.lds.update_rejected`, …). Only counters and gauges, as numbers.
 */
export interface UiStatSample {
  /** Milliseconds since the epoch, when the poll answered. */
  at: number;
  admin: string;
  nodeId?: string;
  values: Record<string, number>;
}

/**
 * One journal entry (the same fields as `GET /debug/journal`) for the sequence diagram,
 * with what the page needs beside it.
 */
export interface UiJournalEntry {
  seq: number;
  time: string;
  /** `open`, `close`, `rejected`, `response`, `subscribe`, `ack`, `nack`, `stale`, … */
  kind: string;
  direction: 'request' | 'response' | 'stream';
  connectionId?: string;
  nodeId?: string;
  peer?: string;
  typeUrl?: string;
  /** `CDS`, `LDS`, … when `typeUrl` is set. */
  type?: string;
  version?: string;
  nonce?: string;
  /** Requests: the resource names subscribed (`'*'`: wildcard), as the stream knew them. */
  names?: '*' | string[];
  /** Responses: how many resources, and the encoded size. */
  resources?: number;
  bytes?: number;
  /** NACK: Envoy's `error_detail` (its message is Envoy's own text). */
  errorDetail?: { code: number; message: string };
  reason?: string;
  /**
   * Requests: when it arrived, responses were being withheld (`POST /control/withhold`,
   * `--withhold-first`) or an active `withhold` fault covered it, so no answer will go out
   * until released. The page draws it as waiting until a response for the type follows.
   */
  waiting?: boolean;
}

/** A fault as `GET /control/faults` lists it. */
export interface UiFault {
  id: string;
  scenario: string;
  params: Record<string, unknown>;
  scope: { node?: string; types?: string[] };
  state: 'armed' | 'active' | 'done';
  appliedAt: string;
  activatedAt?: string;
  doneAt?: string;
  reason?: string;
  counts: Record<string, number>;
}

/** A fault's step, for a marker on the sequence diagram. */
export interface UiFaultMarker {
  action: 'applied' | 'activated' | 'done' | 'removed';
  /** ISO time. */
  time: string;
  fault: UiFault;
}

/** The server's switches. */
export interface UiServerState {
  /** Every response held (`POST /control/withhold`; `POST /control/release` lets them go). */
  withheld: boolean;
  /** The xDS port is open (false after `POST /control/down`, until `POST /control/up`). */
  serving: boolean;
}

/** What the page's buttons offer. */
export interface UiCatalogue {
  /** Fault scenario names (`POST /control/faults {"scenario": …}`). */
  scenarios: string[];
  /** The NACK catalogue: `{"scenario":"nack","params":{"config": name}}`. */
  nacks: { name: string; type: string; summary: string; envoyError: string }[];
}

/** Everything the page shows, at once. */
export interface UiSnapshot {
  /** {@link UI_EVENTS_VERSION}. */
  version: number;
  /** ISO time the snapshot was taken. */
  at: string;
  /** The language the mock was started with (`--lang`, `LANG`): the page's default. (v2) */
  lang?: string;
  /** `127.0.0.1:15012` (xDS) and `127.0.0.1:15014` (this control API), when known. */
  addresses: { xds?: string; control?: string };
  state: UiServerState;
  /** istioctl's proxy-status columns, in order (`CDS`, `LDS`, `EDS`, `RDS`, `ECDS`). */
  columns: string[];
  proxies: UiProxy[];
  faults: UiFault[];
  /** The most recent journal entries, oldest first (at most {@link UI_SNAPSHOT_JOURNAL}). */
  journal: UiJournalEntry[];
  /** Recent stat samples, oldest first (at most {@link UI_SNAPSHOT_SAMPLES} per admin). */
  stats: UiStatSample[];
  admins: UiAdmin[];
  catalogue: UiCatalogue;
  /**
   * Rows left out, per list, to keep the snapshot under its size limit, oldest first (absent
   * when nothing was; src/live/ui-trim.ts). Texts longer than the page shows end with
   * `…[truncated, <n> bytes]`. (v3)
   */
  trimmed?: Partial<Record<'journal' | 'stats' | 'proxies' | 'admins' | 'faults', number>>;
}

export const UI_SNAPSHOT_JOURNAL = 300;
export const UI_SNAPSHOT_SAMPLES = 300;

/** Every event of the stream, by its SSE `event:` name. */
export type UiEvent =
  /** First, and again after a gap: replace everything. */
  | { type: 'snapshot'; data: UiSnapshot }
  /** Rows that changed (or appeared), replacing those with the same `connectionId`. */
  | { type: 'proxies'; data: UiProxy[] }
  /** Streams that ended: remove their rows. */
  | { type: 'proxy-gone'; data: { connectionIds: string[] } }
  /**
   * New journal entries, oldest first. `dropped` counts entries left out since the last
   * batch (a push to many streams writes more than a diagram can show).
   */
  | { type: 'journal'; data: { entries: UiJournalEntry[]; dropped: number } }
  | { type: 'stats'; data: UiStatSample[] }
  /** The whole list of faults, whenever one changes. */
  | { type: 'faults'; data: UiFault[] }
  | { type: 'fault'; data: UiFaultMarker }
  | { type: 'state'; data: UiServerState }
  | { type: 'admins'; data: UiAdmin[] }
  /** The page fell behind and events were dropped; a `snapshot` follows. */
  | { type: 'gap'; data: { dropped: number } };

/** The JSON body of `POST /ui/admins`: an Envoy admin API for the page to chart. */
export interface UiAdminRequest {
  /** `127.0.0.1:15000`, `[::1]:15000`, `localhost:15000`, `15000` or `http://host:port`. */
  address: string;
}
