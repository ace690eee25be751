/**
 * What every ADS stream is, whatever its protocol: a life from admission to close (the
 * `StreamLife` of stream-life.ts), in which it decodes a request, lets the session classify
 * it, admits the caller (admission.ts) and reports it. Writing what the session owes, through the
 * response policy and `write()` backpressure, is stream-writer.ts's part.
 *
 * Subclasses (sotw-stream.ts, delta-stream.ts) make their session, decode their request type
 * and build their response type; nothing else differs.
 */
import { GrpcStatus, grpcStatusName } from '../core/grpc-status.js';
import type { RequestOutcome, TypeState } from '../core/stream-state.js';
import type { StreamSession } from '../protocol/session.js';
import type { Profile } from '../core/profile.js';
import type { RelayUpstream } from './relay-upstream.js';
import type { ProxyIdentity } from '../core/identity.js';
import type { Snapshot } from '../core/snapshot.js';
import { isSinkCall, type AdsCall, type CallSink } from './ads-service.js';
import type { StreamView, UpstreamState } from '../core/events.js';
import type { ResponsePolicy } from '../core/policy.js';
import { logOutcome } from './stream-log.js';
import { cutText } from '../util/cut-text.js';
import { freshUuid } from '../util/fresh-uuid.js';
import { istiodIdentifier, type DebugResource } from '../core/debug-answer.js';
import { appendNonceField } from '../xds/wire.js';
import { verifiedIdentity, type VerifiedIdentity } from '../core/stream-auth.js';
import type {
  AdmittedState,
  AdmittingState,
  ClosedState,
  OpenState,
  StreamLife,
} from './stream-life.js';
import {
  answerDebug,
  refusedByApiGenerator,
  refusedNode,
  type AdmissionOptions,
  type Admitted,
} from './admission.js';

/** The longest status message a stream ends with (characters; the rest is cut, marked). */
export const MAX_STATUS_MESSAGE = 1024;

export interface StreamContext extends AdmissionOptions {
  /** The snapshot a proxy is served from (per-node selection happens here). */
  snapshotFor(proxy: ProxyIdentity): Snapshot;
  policy: ResponsePolicy;
  /** Written into every response's `control_plane.identifier`. */
  controlPlaneId: string;
  /** Delta resources carry their content version (see `MockIstiodOptions`). */
  deltaResourceVersions?: boolean;
  /** SotW: leave names without a resource out, instead of istiod's empty resource of each. */
  omitMissingResources?: boolean;
  /** Whose rules the sessions follow (core/profile.ts); istiod's when absent. */
  profile?: Profile;
  /** A relay's upstream istiod (`serve --relay`): streams are relayed to it, not served here. */
  relay?: RelayUpstream;
  /** The most subscriptions one stream may hold (default DEFAULT_MAX_SUBSCRIPTIONS). */
  maxSubscriptions?: number;
  /** istiod's connection id: `<pod>.<namespace>-<counter>`. */
  connectionId(proxyId: string): string;
  register(stream: AdsStream): void;
  /** The most of a NACK's text a stream keeps (`DEFAULT_NACK_TEXT_MAX` when absent). */
  nackTextMax?: number;
  unregister(stream: AdsStream): void;
}

export type Protocol = 'sotw' | 'delta';

/** A response of a debug type, as the protocol encodes it (`identifier`: istiod's JSON). */
export interface DebugBody {
  typeUrl: string;
  resources: readonly DebugResource[];
  version: string;
  identifier: string;
}

const ADMITTING: AdmittingState = { t: 'admitting' };
const CLOSED_UNSEEN: ClosedState = { t: 'closed', view: undefined };
const NO_IDENTITIES: readonly string[] = [];

/**
 * The stream each call feeds (see `AdsStream.callListeners`), kept on the call under a symbol
 * of ours: a WeakMap did the same with an ephemeron per stream, which every GC walks.
 */
const STREAM = Symbol('mock-istiod stream');
type FedCall = AdsCall & { [STREAM]?: AdsStream };
/** The stream a call feeds, once one was made for it. */
export const streamOfCall = (call: AdsCall): AdsStream | undefined => (call as FedCall)[STREAM];

/**
 * The view of a stream let in. Its connection time is kept as milliseconds and made a Date
 * only when read (the debug views, the API): a Date on every idle stream costs about 90 bytes.
 */
class AdmittedView implements StreamView {
  declare upstream?: UpstreamState;
  constructor(
    public connectionId: string,
    readonly peer: string,
    private readonly connectedAtMs: number,
    readonly protocol: Protocol,
    readonly proxy: ProxyIdentity,
    readonly types: ReadonlyMap<string, Readonly<TypeState>>,
  ) {}

  get connectedAt(): Date {
    return new Date(this.connectedAtMs);
  }
}

/** What a session brings beyond `StreamSession`: its requests and its subscription limit. */
export interface ProtocolSession<R> extends StreamSession {
  onRequest(request: R): RequestOutcome;
  maxSubscriptions: number;
}

export abstract class AdsStream<R = unknown, S extends ProtocolSession<R> = ProtocolSession<R>>
  implements Admitted, CallSink
{
  abstract readonly protocol: Protocol;
  readonly session: S;
  private readonly connectedAtMs = Date.now();
  readonly peer: string;
  connectionId = '';
  protected life: StreamLife = ADMITTING;
  /** What the next responses answer, for istiod's PUSH line: a request, or a config push. */
  protected trigger: 'request' | 'push' = 'request';

  /** `identities`: the SPIFFE identities its caller proved (none when the port checks none). */
  constructor(
    protected readonly call: AdsCall,
    protected readonly ctx: StreamContext,
    readonly identities: readonly string[] = NO_IDENTITIES,
  ) {
    this.peer = call.getPeer();
    this.session = this.newSession();
    if (ctx.maxSubscriptions !== undefined) this.session.maxSubscriptions = ctx.maxSubscriptions;
    (call as FedCall)[STREAM] = this;
    if (isSinkCall(call)) call.attach(this);
    else for (const [event, listener] of AdsStream.callListeners) call.on(event, listener);
  }

  /**
   * The call's listeners, shared by every stream, for a call that tells its stream through
   * events (grpc-js's): an emitter calls a listener with itself as `this`, and each finds its
   * stream by the call. Five closures per stream cost an idle stream about 300 bytes
   * (docs/BENCHMARKS.md).
   */
  private static readonly callListeners: readonly [string, (this: AdsCall, b: Buffer) => void][] = [
    [
      'data',
      function (bytes) {
        streamOfCall(this)?.callData(bytes);
      },
    ],
    [
      'end',
      function () {
        streamOfCall(this)?.callEnded();
      },
    ],
    [
      'cancelled',
      function () {
        streamOfCall(this)?.callCancelled();
      },
    ],
    [
      'error',
      function () {
        streamOfCall(this)?.callFailed();
      },
    ],
    [
      'close',
      function () {
        streamOfCall(this)?.callClosed();
      },
    ],
  ];

  /** The proxy half-closed its side: it wants nothing more, so end ours cleanly too. */
  callEnded(): void {
    this.end(GrpcStatus.OK, 'client closed the stream');
  }

  callCancelled(): void {
    this.finish('client cancelled the stream');
  }

  callFailed(): void {
    this.finish('stream error');
  }

  callClosed(): void {
    this.finish('stream closed');
  }

  /** The protocol's session (called once, by the constructor). */
  protected abstract newSession(): S;
  /** Decodes a request (throws on bad bytes). */
  protected abstract decode(bytes: Buffer): R;
  /** Encodes the body (all but the nonce) of a response of a debug type. */
  protected abstract encodeDebug(body: DebugBody): Buffer;
  /** Sends whatever the session owes and the policy allows; safe to call at any time. */
  abstract flush(): void;
  /** Stops what the writer waits on (its delays): the stream is closed. */
  protected abstract stopWriting(): void;
  /**
   * A relay's own handling of a request it let in (relay-sotw-stream.ts): sent on to the
   * upstream istiod instead of answered here. Absent on the mock's own streams.
   */
  protected forward?(outcome: RequestOutcome): void;

  get isClosed(): boolean {
    return this.life.t === 'closed';
  }

  /** The read-only view handed to listeners; undefined until the node was let in. */
  view(): StreamView | undefined {
    return this.life.t === 'admitting' ? undefined : this.life.view;
  }

  /** The snapshot this stream is served from. */
  snapshot(): Snapshot | undefined {
    const proxy = this.session.proxy;
    return proxy && this.ctx.snapshotFor(proxy);
  }

  /**
   * Ends the stream with a gRPC status (OK ends it cleanly). The message may quote what the
   * client sent (istiod's `missing parts in the service node "<id>"`): it goes in an HTTP/2
   * trailer, and a client refuses a trailer larger than its header limit (grpc-js: a protocol
   * error, the whole connection lost), so it is cut to `MAX_STATUS_MESSAGE` characters.
   */
  end(code: number, text: string): void {
    if (this.life.t === 'closed') return;
    const message = cutText(text, MAX_STATUS_MESSAGE);
    // Record why first: emitting 'error' runs the call's own listeners, which finish too.
    this.finish(
      code === GrpcStatus.OK ? message : `ended by the server: ${grpcStatusName(code)} ${message}`,
    );
    if (code === GrpcStatus.OK) this.call.end();
    else this.call.emit('error', { code, details: message });
  }

  /**
   * A new snapshot is current: mark what changed as owed and send it. The stream looks its
   * snapshot up rather than taking the change's: a change names one set, and which set serves
   * this proxy is the store's per-node choice (which the same install may change).
   */
  onSnapshot(): void {
    const snapshot = this.snapshot();
    if (!snapshot) return;
    this.session.onSnapshot(snapshot);
    this.trigger = 'push';
    this.flush();
  }

  /** Sends the current version of these types (default: every subscribed type) again. */
  resend(typeUrls?: readonly string[]): void {
    this.session.owe(typeUrls);
    this.trigger = 'push';
    this.flush();
  }

  /** Writes a complete response of a debug type (admission.ts answers them). */
  writeDebug(typeUrl: string, resources: readonly DebugResource[], version: string): void {
    const identifier = istiodIdentifier(this.ctx.controlPlaneId);
    const body = this.encodeDebug({ typeUrl, resources, version, identifier });
    // The nonce as every other response's: the version followed by a UUID.
    this.call.write(appendNonceField(body, version + freshUuid()));
  }

  callData(bytes: Buffer): void {
    if (this.life.t === 'closed') return;
    let outcome: RequestOutcome;
    try {
      outcome = this.session.onRequest(this.decode(bytes));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.end(GrpcStatus.INVALID_ARGUMENT, `malformed request: ${reason}`);
      return;
    }
    if (outcome.kind === 'rejected') {
      this.ctx.log.warn({ peer: this.peer, err: outcome.message }, 'ADS: stream rejected');
      this.ctx.events.emit('stream-rejected', this.peer, outcome.message);
      this.end(outcome.code ?? GrpcStatus.INVALID_ARGUMENT, outcome.message);
      return;
    }
    // istiod hands a health report to its workload-entry controller; there is nothing to answer.
    if (outcome.kind === 'health') return;
    let life = this.life.t === 'admitting' ? this.admit() : this.life;
    if (!life) return;
    if (this.forward) {
      // A relay: istiod upstream answers everything, debug types included.
      if (life.t === 'admitted') life = this.open(life.view, life.verified);
      if (outcome.kind !== 'debug') this.ctx.events.emit('request', life.view, outcome);
      this.trigger = 'request';
      this.forward(outcome);
      return;
    }
    if (outcome.kind === 'debug') {
      answerDebug(this.ctx, this, outcome, life.view.proxy, life.verified);
      return;
    }
    if (refusedByApiGenerator(this.ctx, this, outcome.typeUrl, life.verified)) return;
    if (life.t === 'admitted') life = this.open(life.view, life.verified);
    logOutcome(this.ctx.log, this.connectionId, outcome, this.snapshot());
    this.ctx.events.emit('request', life.view, outcome);
    this.trigger = 'request';
    if (this.session.hasOwed()) this.flush();
  }

  /** Lets the node of the first request in (admission.ts), or ends the stream. */
  private admit(): AdmittedState | undefined {
    // A request past the session's checks is served: its state carries the node.
    const accepted = this.session.state;
    if (accepted.t !== 'serving' || refusedNode(this.ctx, this, accepted.proxy)) return undefined;
    const { proxy } = accepted;
    const view = new AdmittedView(
      this.connectionId,
      this.peer,
      this.connectedAtMs,
      this.protocol,
      proxy,
      this.session.types,
    );
    return (this.life = {
      t: 'admitted',
      view,
      verified: verifiedIdentity(proxy, this.identities),
    });
  }

  private open(view: StreamView, verified: VerifiedIdentity | undefined): OpenState {
    const life: OpenState = { t: 'open', view, verified, flushing: false };
    this.life = life;
    this.connectionId = this.ctx.connectionId(view.proxy.id);
    view.connectionId = this.connectionId;
    this.ctx.register(this);
    // Once per stream: at warn no line is built only to be dropped.
    if (this.ctx.log.isLevelEnabled('info')) this.logOpen(view);
    this.ctx.events.emit('stream-open', view);
    return life;
  }

  private logOpen(view: StreamView): void {
    this.ctx.log.info(
      {
        conId: this.connectionId,
        node: view.proxy.nodeId,
        peer: this.peer,
        protocol: this.protocol,
      },
      `ADS: new ${this.protocol === 'delta' ? 'delta ' : ''}connection for node:${this.connectionId}`,
    );
  }

  private finish(reason: string): void {
    const life = this.life;
    if (life.t === 'closed') return;
    this.life = life.t === 'admitting' ? CLOSED_UNSEEN : { t: 'closed', view: life.view };
    this.stopWriting();
    if (life.t !== 'open') return;
    this.ctx.unregister(this);
    this.ctx.log.info(
      { conId: this.connectionId, node: life.view.proxy.nodeId, reason },
      'ADS: connection closed',
    );
    this.ctx.events.emit('stream-close', life.view, reason);
  }
}
