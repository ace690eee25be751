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

const CALLING = Symbol('listeners as emit calls them');
type Listener = (...args: unknown[]) => unknown;
type Emitter = EventEmitter & { [CALLING]: Map<string | symbol, readonly Listener[]> };

/**
 * The server's events. Every armed fault listens here until it is removed (a trigger waits for
 * a request, a timeline for responses), so the number of listeners follows what the user
 * arms: Node's warning at 11 of a kind would be noise, not a leak (the reliability fuzz checks
 * that removing the faults brings the count back).
 */
export class ServerEventEmitter extends EventEmitter<ServerEvents> {
  /**
   * Each event's listeners as `emit` calls them, copied when the listeners change rather than
   * on every emit (see `fasterEmit` below).
   */
  readonly [CALLING] = new Map<string | symbol, readonly Listener[]>();

  constructor() {
    super();
    this.setMaxListeners(0);
  }
}

/**
 * Node's `emit` copies an event's listeners each time, so that one added or removed by another
 * listener runs (or not) from the next emit on, and gathers the arguments into an array. This
 * `emit` keeps that rule with a copy made when the listeners change, and passes the (at most
 * three) arguments one by one: once optimized, a connection's five emits (opened, two requests,
 * a response, closed) allocate nothing. An 'error' with no listener throws, by Node's `emit`.
 */
function fasterEmit(this: Emitter, event: string | symbol, ...args: unknown[]): boolean {
  if (event === 'error') return EventEmitter.prototype.emit.call(this, event, ...args);
  let listeners = this[CALLING].get(event);
  if (listeners === undefined) {
    listeners = this.rawListeners(event) as Listener[];
    this[CALLING].set(event, listeners);
  }
  const count = args.length;
  for (const listener of listeners) {
    if (count === 1) listener.call(this, args[0]);
    else if (count === 2) listener.call(this, args[0], args[1]);
    else if (count === 0) listener.call(this);
    else if (count === 3) listener.call(this, args[0], args[1], args[2]);
    else listener.apply(this, args);
  }
  return listeners.length > 0;
}

Object.defineProperty(ServerEventEmitter.prototype, 'emit', { value: fasterEmit, writable: true });
// Every way listeners change forgets the copies: `once` and `prependOnceListener` go through
// `on` and `prependListener`, a once-listener removes itself with `removeListener`, `off` is it.
for (const name of [
  'on',
  'addListener',
  'prependListener',
  'removeListener',
  'off',
  'removeAllListeners',
] as const) {
  const change = Reflect.get(EventEmitter.prototype, name) as Listener;
  Object.defineProperty(ServerEventEmitter.prototype, name, {
    value: function (this: Emitter, ...args: unknown[]) {
      // Before, and after: a 'newListener' or 'removeListener' listener may emit meanwhile.
      this[CALLING].clear();
      const result = change.apply(this, args);
      this[CALLING].clear();
      return result;
    },
    writable: true,
  });
}
