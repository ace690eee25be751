/**
 * What every ADS stream does, whatever its protocol: decode a request, let the session
 * classify it, report it, and write what the session owes through the response policy,
 * respecting `write()` backpressure. A slow reader does not queue versions: while it
 * cannot take more, the type stays owed and gets whatever is current when it drains.
 *
 * Subclasses (sotw-stream.ts, delta-stream.ts) decode their request type and build their
 * response type; nothing else differs.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { RequestOutcome } from '../core/stream-state.js';
import type { StreamSession } from '../protocol/session.js';
import type { TypeState } from '../core/stream-state.js';
import type { ProxyIdentity } from '../core/identity.js';
import type { Snapshot, TypeSnapshot } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import type { AdsCall } from './ads-service.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { ResponseDecision, ResponsePolicy } from '../core/policy.js';
import { logOutcome } from './stream-log.js';
import { cutText } from '../util/cut-text.js';
import type { DebugAnswer, DebugAnswerer, DebugResource } from '../core/debug-answer.js';
import {
  authorizeStream,
  verifiedIdentity,
  type StreamAuthenticator,
  type VerifiedIdentity,
} from '../core/stream-auth.js';
import { apiGeneratorRefusal, hasIstiodGenerator } from '../protocol/generated-types.js';

/** The longest status message a stream ends with (characters; the rest is cut, marked). */
export const MAX_STATUS_MESSAGE = 1024;
/** `session` with the stream's subscription limit, when the context sets one. */
export function withSubscriptionLimit<S extends { maxSubscriptions: number }>(
  session: S,
  ctx: StreamContext,
): S {
  if (ctx.maxSubscriptions !== undefined) session.maxSubscriptions = ctx.maxSubscriptions;
  return session;
}

export interface StreamContext {
  /** The snapshot a proxy is served from (per-node selection happens here). */
  snapshotFor(proxy: ProxyIdentity): Snapshot;
  policy: ResponsePolicy;
  /** Written into every response's `control_plane.identifier`. */
  controlPlaneId: string;
  /** Delta resources carry their content version (see `MockIstiodOptions`). */
  deltaResourceVersions?: boolean;
  /** SotW: leave names without a resource out, instead of istiod's empty resource of each. */
  omitMissingResources?: boolean;
  /** The most subscriptions one stream may hold (default DEFAULT_MAX_SUBSCRIPTIONS). */
  maxSubscriptions?: number;
  events: ServerEventEmitter;
  log: Logger;
  /** istiod's connection id: `<pod>.<namespace>-<counter>`. */
  connectionId(proxyId: string): string;
  register(stream: AdsStream): void;
  /** Authenticates each stream before its first request; undefined: every stream is let in. */
  authenticate?: StreamAuthenticator;
  /** Answers istiod's debug types; without it they are answered with no resources. */
  debug?: DebugAnswerer;
  /**
   * Refuse debug types to a stream without a verified identity, as istiod does by default
   * (`ENABLE_DEBUG_ENDPOINT_AUTH`); false answers them on any stream.
   */
  debugAuth?: boolean;
  /** Accept ztunnel nodes (istiod's `PILOT_ENABLE_AMBIENT`, off by default). */
  ambient?: boolean;
  /** The most of a NACK's text a stream keeps (`DEFAULT_NACK_TEXT_MAX` when absent). */
  nackTextMax?: number;
  unregister(stream: AdsStream): void;
}

export type Protocol = 'sotw' | 'delta';

/** The stream each call feeds (see `AdsStream.callListeners`). */
const streamOfCall = new WeakMap<AdsCall, AdsStream>();

/** The empty `delays` and `bypass` every stream starts with; replaced, never written to. */
const NO_DELAYS: Map<string, NodeJS.Timeout> = new Map();
const NO_BYPASS: Set<string> = new Set();

/** A response ready for the wire. */
export interface BuiltResponse {
  message: Buffer;
  version: string;
  nonce: string;
  count: number;
  /** Delta: how many names the response removes. */
  removed?: number;
}

/** A size as istiod's logs write it (pilot/pkg/networking/util ByteCount): `980B`, `3.2kB`. */
export function byteCount(bytes: number): string {
  if (bytes < 1000) return `${bytes}B`;
  let div = 1000;
  let exp = 0;
  for (let n = Math.floor(bytes / 1000); n >= 1000; n = Math.floor(n / 1000)) {
    div *= 1000;
    exp += 1;
  }
  return `${(bytes / div).toFixed(1)}${'kMGTPE'[exp]}B`;
}

export abstract class AdsStream {
  abstract readonly protocol: Protocol;
  abstract readonly session: StreamSession;
  readonly connectedAt = new Date();
  readonly peer: string;
  connectionId = '';
  /** The SPIFFE identities its caller proved (empty when the port authenticates nothing). */
  identities: readonly string[] = [];
  private authorized = false;
  /** The identity that matched the node (istiod's `VerifiedIdentity`), once authorized. */
  private verified: VerifiedIdentity | undefined;
  private flushing = false;
  private closed = false;
  /** Registered and announced (`stream-open`): only such a stream announces its close. */
  private opened = false;
  private responsesSent = 0;
  /**
   * Types whose response waits out a delay decided by the policy. Few streams ever have one:
   * until the first delay, this is the shared empty map (never written to), as an idle
   * stream's own empty Map and Set cost about 340 bytes (docs/BENCHMARKS.md).
   */
  private delays = NO_DELAYS;
  /** Types whose delay has run out: sent next without asking the policy again (as above). */
  private bypass = NO_BYPASS;
  private cachedView: StreamView | undefined;
  /** What the next responses answer, for istiod's PUSH line: a request, or a config push. */
  private trigger: 'request' | 'push' = 'request';

  constructor(
    private readonly call: AdsCall,
    protected readonly ctx: StreamContext,
  ) {
    this.peer = call.getPeer();
    streamOfCall.set(call, this);
    for (const [event, listener] of AdsStream.callListeners) call.on(event, listener);
  }

  /**
   * The call's listeners, shared by every stream: an emitter calls a listener with itself as
   * `this`, and each finds its stream by the call. Five closures per stream cost an idle
   * stream about 300 bytes (docs/BENCHMARKS.md).
   */
  private static readonly callListeners: readonly [string, (this: AdsCall, b: Buffer) => void][] = [
    [
      'data',
      function (bytes) {
        streamOfCall.get(this)?.onData(bytes);
      },
    ],
    // The proxy half-closed its side: it wants nothing more, so end ours cleanly too.
    [
      'end',
      function () {
        streamOfCall.get(this)?.end(grpc.status.OK, 'client closed the stream');
      },
    ],
    [
      'cancelled',
      function () {
        streamOfCall.get(this)?.finish('client cancelled the stream');
      },
    ],
    [
      'error',
      function () {
        streamOfCall.get(this)?.finish('stream error');
      },
    ],
    [
      'close',
      function () {
        streamOfCall.get(this)?.finish('stream closed');
      },
    ],
  ];

  /** Decodes the bytes and lets the session classify the request (throws on bad bytes). */
  protected abstract classify(bytes: Buffer): RequestOutcome;
  /** Encodes a complete response of a debug type. */
  protected abstract encodeDebug(
    typeUrl: string,
    resources: readonly DebugResource[],
    version: string,
    nonce: string,
  ): Buffer;
  /** Builds the response for a type, or undefined when there is nothing to say. */
  protected abstract build(
    state: TypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): BuiltResponse | undefined;

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The read-only view handed to listeners; undefined until the node was accepted. Built
   * once and shared by every event of the stream (its fields do not change once the stream
   * is open; `types` is the session's live map): a push to thousands of streams should not
   * allocate views for each response.
   */
  view(): StreamView | undefined {
    const proxy = this.session.proxy;
    if (!proxy) return undefined;
    if (this.cachedView?.proxy === proxy && this.cachedView.connectionId === this.connectionId) {
      return this.cachedView;
    }
    this.cachedView = {
      connectionId: this.connectionId,
      peer: this.peer,
      connectedAt: this.connectedAt,
      protocol: this.protocol,
      proxy,
      types: this.session.types,
    };
    return this.cachedView;
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
  end(code: grpc.status, text: string): void {
    if (this.closed) return;
    const message = cutText(text, MAX_STATUS_MESSAGE);
    // Record why first: emitting 'error' runs the call's own listeners, which finish too.
    this.finish(
      code === grpc.status.OK ? message : `ended by the server: ${grpc.status[code]} ${message}`,
    );
    if (code === grpc.status.OK) this.call.end();
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

  private onData(bytes: Buffer): void {
    if (this.closed) return;
    let outcome: RequestOutcome;
    try {
      outcome = this.classify(bytes);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.end(grpc.status.INVALID_ARGUMENT, `malformed request: ${reason}`);
      return;
    }
    if (outcome.kind === 'rejected') {
      this.ctx.log.warn({ peer: this.peer, err: outcome.message }, 'ADS: stream rejected');
      this.ctx.events.emit('stream-rejected', this.peer, outcome.message);
      this.end(outcome.code ?? grpc.status.INVALID_ARGUMENT, outcome.message);
      return;
    }
    // istiod hands a health report to its workload-entry controller; there is nothing to answer.
    if (outcome.kind === 'health') return;
    if (!this.authorized && (this.refusedZtunnel() || !this.authorize())) return;
    if (outcome.kind === 'debug') {
      this.answerDebug(outcome.typeUrl, outcome.names);
      return;
    }
    if (this.refusedByApiGenerator(outcome.typeUrl)) return;
    const view = this.view() as StreamView;
    if (!this.opened) this.open(view);
    logOutcome(this.ctx.log, this.connectionId, outcome, this.snapshot());
    this.ctx.events.emit('request', view, outcome);
    this.trigger = 'request';
    if (this.session.hasOwed()) this.flush();
  }

  /**
   * istiod's authorization, once the node is known: an authenticated caller must be the proxy
   * it says it is (namespace and service account), else PERMISSION_DENIED.
   */
  private authorize(): boolean {
    const proxy = this.session.proxy as ProxyIdentity;
    const refusal = authorizeStream(proxy, this.identities);
    if (refusal) {
      this.ctx.log.warn(
        { peer: this.peer, identities: this.identities, node: proxy.nodeId },
        `Unauthorized XDS: ${this.peer} with identity [${this.identities.join(' ')}]: ${refusal.slice('authorization failed: '.length)}`,
      );
      this.ctx.events.emit('stream-rejected', this.peer, refusal);
      this.end(grpc.status.PERMISSION_DENIED, refusal);
      return false;
    }
    this.authorized = true;
    this.verified = verifiedIdentity(proxy, this.identities);
    return true;
  }

  /**
   * istiod serves ztunnel only with ambient on (`PILOT_ENABLE_AMBIENT`); otherwise it ends the
   * stream with a plain error, which gRPC sends as UNKNOWN (conformance case "The node: a
   * ztunnel node ends the stream").
   */
  private refusedZtunnel(): boolean {
    if (this.ctx.ambient || this.session.proxy?.type !== 'ztunnel') return false;
    const message = 'ztunnel requires PILOT_ENABLE_AMBIENT=true';
    this.ctx.events.emit('stream-rejected', this.peer, message);
    this.end(grpc.status.UNKNOWN, message);
    return true;
  }

  /**
   * A type istiod has no generator for (and the mock serves nothing of) goes to istiod's `api`
   * generator, which serves cluster-wide config to the control plane only: without a verified
   * identity UNAUTHENTICATED, outside the root namespace PERMISSION_DENIED (conformance cases
   * "Types without a generator" and "Identity"). In the root namespace it is answered empty.
   */
  private refusedByApiGenerator(typeUrl: string): boolean {
    if (hasIstiodGenerator(typeUrl) || this.snapshot()?.has(typeUrl)) return false;
    const refusal = apiGeneratorRefusal(this.verified);
    if (!refusal) return false;
    this.ctx.events.emit('stream-rejected', this.peer, refusal.message);
    this.end(refusal.code, refusal.message);
    return true;
  }

  /**
   * Answers a debug request. A stream that asks only for debug types (istioctl's) is a debug
   * client, not a proxy: it is never registered nor announced, so it shows in no debug view,
   * journal or metric, as istiod leaves such clients out of syncz.
   */
  private answerDebug(typeUrl: string, names: readonly string[]): void {
    const caller = this.session.proxy as ProxyIdentity;
    this.ctx.log.debug({ peer: this.peer, type: typeUrl, names }, 'ADS: debug request');
    if (this.ctx.debugAuth !== false && !this.verified) {
      // istiod's StatusGen and DebugGen (conformance cases "Debug types").
      this.ctx.log.warn(
        `proxy ${caller.id} is not authorized to receive debug info. Ensure you are connecting over TLS port and are authenticated.`,
      );
      this.end(grpc.status.UNAUTHENTICATED, 'authentication required');
      return;
    }
    const answering = this.ctx.debug
      ? this.ctx.debug({ typeUrl, names, caller, identity: this.verified })
      : Promise.resolve<DebugAnswer>({ ok: true, resources: [] });
    answering.then(
      (answer) => {
        if (this.closed) return;
        if (!answer.ok) return this.end(answer.code, answer.message);
        const version = this.snapshot()?.version ?? '';
        // The nonce as every other response's: the version followed by a UUID.
        const nonce = version + randomUUID();
        this.call.write(this.encodeDebug(typeUrl, answer.resources, version, nonce));
      },
      (err: unknown) => {
        this.ctx.log.error({ err, type: typeUrl }, 'ADS: debug request failed');
        this.end(grpc.status.INTERNAL, `debug request failed: ${String(err)}`);
      },
    );
  }

  private open(view: StreamView): void {
    this.opened = true;
    this.connectionId = this.ctx.connectionId(view.proxy.id);
    view.connectionId = this.connectionId;
    this.ctx.register(this);
    // Once per stream: at warn no line is built only to be dropped.
    if (this.ctx.log.isLevelEnabled('info')) this.logOpen(view);
    this.ctx.events.emit('stream-open', view);
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

  /** Sends whatever the session owes and the policy allows; safe to call at any time. */
  flush(): void {
    if (this.flushing || this.closed || !this.session.proxy) return;
    this.flushing = true;
    // The common case, every write accepted, stays synchronous: a push to thousands of
    // streams should not cost a chain of promises per stream. Only a stream whose `write()`
    // asked to wait goes on asynchronously, after `drain`.
    const skipped = new Set<string>();
    let blocked = false;
    try {
      blocked = this.sendOwed(skipped);
    } catch (err) {
      this.writeFailed(err);
    }
    if (!blocked) {
      this.flushing = false;
      return;
    }
    this.drainThenSend(skipped)
      .catch((err: unknown) => this.writeFailed(err))
      .finally(() => {
        this.flushing = false;
      });
  }

  private writeFailed(err: unknown): void {
    this.ctx.log.error({ err, conId: this.connectionId }, 'ADS: write failed');
  }

  /** Waits for `drain`, sends what is owed, and again while the stream asks to wait. */
  private async drainThenSend(skipped: Set<string>): Promise<void> {
    for (;;) {
      await this.waitForDrain();
      if (!this.sendOwed(skipped)) return;
    }
  }

  /**
   * Sends owed types in ADS order, as the policy decides, until none is left (returns false)
   * or the stream is not writable any more (returns true: wait for `drain`). `skipped` holds
   * the types the policy held during this flush.
   */
  private sendOwed(skipped: Set<string>): boolean {
    const allowed = (typeUrl: string) => !skipped.has(typeUrl) && !this.delays.has(typeUrl);
    for (;;) {
      const state = this.closed ? undefined : this.session.nextOwed(allowed);
      const view = this.view();
      const snapshot = this.snapshot();
      if (!state || !view || !snapshot) return false;
      const current = snapshot.get(state.typeUrl);
      const decision: ResponseDecision = this.bypass.delete(state.typeUrl)
        ? { kind: 'send' }
        : this.ctx.policy.decide({
            stream: view,
            protocol: this.protocol,
            typeUrl: state.typeUrl,
            snapshot: current,
            responsesSent: this.responsesSent,
          });
      switch (decision.kind) {
        case 'hold':
          skipped.add(state.typeUrl);
          continue;
        case 'delay':
          this.delay(state.typeUrl, decision.ms);
          continue;
        case 'end':
          this.end(decision.code, decision.message);
          return false;
        case 'replace':
          if (!this.send(state, decision.snapshot, decision.reuseNonce === true)) return true;
          continue;
        case 'send':
          if (!this.send(state, current, false)) return true;
      }
    }
  }

  /** Holds a type for `ms`, then sends it without asking the policy again. */
  private delay(typeUrl: string, ms: number): void {
    const timer = setTimeout(() => {
      this.delays.delete(typeUrl);
      if (this.bypass === NO_BYPASS) this.bypass = new Set();
      this.bypass.add(typeUrl);
      this.flush();
    }, ms);
    timer.unref();
    if (this.delays === NO_DELAYS) this.delays = new Map();
    this.delays.set(typeUrl, timer);
  }

  /** Writes one response (if there is one to write); false when the stream asks to wait. */
  private send(state: TypeState, snapshot: TypeSnapshot, reuseNonce: boolean): boolean {
    const started = performance.now();
    const built = this.build(state, snapshot, reuseNonce);
    if (!built) return true;
    this.responsesSent += 1;
    const writable = this.call.write(built.message);
    const elapsedMs = performance.now() - started;
    this.afterSend(state, built, { snapshot, elapsedMs });
    return writable;
  }

  private afterSend(
    state: TypeState,
    built: BuiltResponse,
    extra: { snapshot: TypeSnapshot; elapsedMs: number },
  ): void {
    const view = this.view();
    if (!view) return;
    const { typeUrl } = state;
    const { version, nonce, count } = built;
    const bytes = built.message.length;
    // Checked first, so that at warn level (a large fleet's setting) no line is built only to be
    // dropped: this runs once per stream on every push.
    if (this.ctx.log.isLevelEnabled('info')) {
      // istiod's line (pilot/pkg/xds/xdsgen.go, delta.go): ` request` when it answers one.
      const type = shortTypeName(typeUrl);
      const reason = this.trigger === 'request' ? ' request' : '';
      const removed = built.removed === undefined ? '' : ` removed:${built.removed}`;
      this.ctx.log.info(
        { conId: this.connectionId, type, version, resources: count, nonce },
        `${type}: PUSH${reason} for node:${view.proxy.id} resources:${count}${removed} size:${byteCount(bytes)}`,
      );
    }
    const names = state.names === '*' ? undefined : state.names;
    this.ctx.events.emit('response', view, {
      typeUrl,
      version,
      nonce,
      count,
      bytes,
      snapshot: extra.snapshot,
      names,
      elapsedMs: extra.elapsedMs,
    });
  }

  private async waitForDrain(): Promise<void> {
    const ac = new AbortController();
    await Promise.race([
      once(this.call, 'drain', { signal: ac.signal }),
      once(this.call, 'close', { signal: ac.signal }),
    ]).catch(() => undefined);
    ac.abort();
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.delays.values()) clearTimeout(timer);
    this.delays = NO_DELAYS;
    const view = this.view();
    if (!view || !this.opened) return;
    this.ctx.unregister(this);
    this.ctx.log.info(
      { conId: this.connectionId, node: view.proxy.nodeId, reason },
      'ADS: connection closed',
    );
    this.ctx.events.emit('stream-close', view, reason);
  }
}
