/**
 * What the server reports as it works: one event per stream opened or closed, request
 * classified, and response written. The journal, metrics, logs and the test-suite library
 * listen here (the seam go-control-plane calls callbacks). Listeners must not throw.
 */
import { EventEmitter } from 'node:events';
import type { ProxyIdentity } from './identity.js';
import type { AuthRefusal, CsrOutcome } from './stream-auth.js';
import type { RequestOutcome } from './stream-state.js';
import type { TypeState } from './stream-state.js';
import type { TypeSnapshot } from './snapshot.js';
import type { SnapshotChange } from './snapshot.js';
import type { Problem } from '../util/problems.js';

/** A read-only view of one connected stream. */
export interface StreamView {
  connectionId: string;
  peer: string;
  connectedAt: Date;
  protocol: 'sotw' | 'delta';
  proxy: ProxyIdentity;
  /** Per-type protocol state (sent, acked, last NACK). */
  types: ReadonlyMap<string, Readonly<TypeState>>;
  /** A relayed stream's link to istiod (`serve --relay`); absent on the mock's own streams. */
  upstream?: UpstreamState;
}

/** What a relayed stream shows of istiod upstream. */
export interface UpstreamState {
  /** `host:port` of istiod. */
  readonly address: string;
  /** Whether its upstream stream is open (false through a held outage). */
  readonly connected: boolean;
  /** The version of each type istiod last sent this stream. */
  readonly received: ReadonlyMap<string, string>;
}

export interface ResponseEvent {
  typeUrl: string;
  version: string;
  nonce: string;
  count: number;
  bytes: number;
  /** The type's snapshot the response was drawn from (what `/debug/config_dump` shows). */
  snapshot: TypeSnapshot;
  /** The names of `snapshot` the proxy is subscribed to; undefined: all of them (wildcard). */
  names?: readonly string[];
  /** Milliseconds spent building and writing the response (`pilot_xds_push_time`). */
  elapsedMs: number;
  /**
   * A relayed stream's response: `istiod` as istiod sent it, `mock` one the mock made in its
   * place (a fault's). Absent on the mock's own streams.
   */
  relayed?: 'istiod' | 'mock';
}

/** The resource set changed: every subscribed stream is owed the changed types. */
export interface SnapshotEvent {
  /** The push version (the newest type version). */
  version: string;
  /** Type URLs whose resources changed. */
  changed: readonly string[];
  at: Date;
}

export interface ServerEvents {
  'stream-open': [stream: StreamView];
  'stream-close': [stream: StreamView, reason: string];
  /** A stream rejected before it had an identity (bad node): no StreamView exists. */
  'stream-rejected': [peer: string, message: string];
  request: [stream: StreamView, outcome: RequestOutcome];
  response: [stream: StreamView, response: ResponseEvent];
  snapshot: [change: SnapshotEvent];
  /** Resource files were reloaded and installed. */
  'resources-reloaded': [path: string, changes: SnapshotChange[]];
  /** A reload of resource files failed; the last good sets keep serving. */
  'resources-error': [path: string, problems: Problem[]];
  /** Two connected proxies claim the same identity (istiod cannot tell them apart). */
  collision: [collision: NodeCollision];
  /** The security side refused a caller: an unauthenticated xDS stream or CA request. */
  'auth-refused': [refusal: AuthRefusal];
  /** What became of a `CreateCertificate` call the CA service took. */
  csr: [outcome: CsrOutcome];
  /** Responses were withheld or released, or the xDS port went down or up: read the server. */
  state: [];
  /** A relayed stream, held through an outage, lost its istiod (with why), or has it back. */
  'relay-upstream': [stream: StreamView, state: 'down' | 'up', reason: string | undefined];
}

export interface NodeCollision {
  /** What they share: the node id, or the pod identity within one CLUSTER_ID. */
  key: string;
  /**
   * The oldest of the colliding streams still open, then the one that just opened: at most
   * five (`count` says how many there are).
   */
  streams: StreamView[];
  /** How many open streams share the key, the one that just opened included. */
  count: number;
}

/**
 * The server's events. Every armed fault listens here until it is removed (a trigger waits for
 * a request, a timeline for responses), so the number of listeners follows what the user
 * arms: Node's warning at 11 of a kind would be noise, not a leak (the reliability fuzz checks
 * that removing the faults brings the count back).
 */
export class ServerEventEmitter extends EventEmitter<ServerEvents> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
