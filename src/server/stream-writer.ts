/**
 * How an open stream writes: what the session owes goes out through the response policy,
 * respecting `write()` backpressure. A slow reader does not queue versions: while it cannot
 * take more, the type stays owed and gets whatever is current when it drains.
 */
import { once } from 'node:events';
import type { TypeState } from '../core/stream-state.js';
import type { TypeSnapshot } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import type { StreamView } from '../core/events.js';
import type { ResponseDecision } from '../core/policy.js';
import { byteCount } from './stream-log.js';
import { AdsStream, type ProtocolSession } from './ads-stream.js';
import { FRAME_PREFIX, isSinkCall } from './ads-service.js';
import { appendNonceField } from '../xds/wire.js';

/** The empty `delays` and `bypass` every stream starts with; replaced, never written to. */
const NO_DELAYS: Map<string, NodeJS.Timeout> = new Map();
const NO_BYPASS: Set<string> = new Set();

/** A response ready for the wire. */
export interface BuiltResponse {
  message: Buffer;
  /**
   * The same bytes `FRAME_PREFIX` bytes into a buffer of their own (`appendNonceField`'s
   * room): what a call that writes frames (`SinkCall`) is given.
   */
  frame?: Buffer;
  version: string;
  nonce: string;
  count: number;
  /** Delta: how many names the response removes. */
  removed?: number;
  /** A relayed stream's response: istiod's, or one the mock made (see `ResponseEvent`). */
  relayed?: 'istiod' | 'mock';
}

/**
 * A response's bytes, `body` and the nonce, laid out once with room for the gRPC prefix:
 * `frame` for a call that writes frames, `message` (a view of the same bytes) for the rest.
 */
export function withNonce(body: Buffer, nonce: string): Pick<BuiltResponse, 'message' | 'frame'> {
  const frame = appendNonceField(body, nonce, FRAME_PREFIX);
  return { message: frame.subarray(FRAME_PREFIX), frame };
}

export abstract class StreamWriter<
  R = unknown,
  S extends ProtocolSession<R> = ProtocolSession<R>,
> extends AdsStream<R, S> {
  private responsesSent = 0;
  /**
   * Types whose response waits out a delay decided by the policy. Few streams ever have one:
   * until the first delay, this is the shared empty map (never written to), as an idle
   * stream's own empty Map and Set cost about 340 bytes (docs/BENCHMARKS.md).
   */
  private delays = NO_DELAYS;
  /** Types whose delay has run out: sent next without asking the policy again (as above). */
  private bypass = NO_BYPASS;

  /** Builds the response for a type, or undefined when there is nothing to say. */
  protected abstract build(
    state: TypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): BuiltResponse | undefined;

  /** Sends whatever the session owes and the policy allows; safe to call at any time. */
  flush(): void {
    const life = this.life;
    if (life.t !== 'open' || life.flushing) return;
    life.flushing = true;
    // The common case, every write accepted, stays synchronous: a push to thousands of
    // streams should not cost a chain of promises per stream. Only a stream whose `write()`
    // asked to wait goes on asynchronously, after `drain`.
    // Few flushes hold a type: an empty list costs less than an empty Set.
    const skipped: string[] = [];
    let blocked = false;
    try {
      blocked = this.sendOwed(skipped);
    } catch (err) {
      this.writeFailed(err);
    }
    if (!blocked) {
      life.flushing = false;
      return;
    }
    this.drainThenSend(skipped)
      .catch((err: unknown) => this.writeFailed(err))
      .finally(() => {
        life.flushing = false;
      });
  }

  private writeFailed(err: unknown): void {
    this.ctx.log.error({ err, conId: this.connectionId }, 'ADS: write failed');
  }

  /** Waits for `drain`, sends what is owed, and again while the stream asks to wait. */
  private async drainThenSend(skipped: string[]): Promise<void> {
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
  private sendOwed(skipped: string[]): boolean {
    const allowed = (typeUrl: string) => !skipped.includes(typeUrl) && !this.delays.has(typeUrl);
    for (;;) {
      const life = this.life;
      const state = life.t === 'open' ? this.session.nextOwed(allowed) : undefined;
      const snapshot = this.snapshot();
      if (!state || !snapshot || life.t !== 'open') return false;
      const { view } = life;
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
          skipped.push(state.typeUrl);
          continue;
        case 'delay':
          this.delay(state.typeUrl, decision.ms);
          continue;
        case 'end':
          this.end(decision.code, decision.message);
          return false;
        case 'replace':
          if (!this.send(view, state, decision.snapshot, decision.reuseNonce === true)) return true;
          continue;
        case 'send':
          if (!this.send(view, state, current, false)) return true;
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
  private send(
    view: StreamView,
    state: TypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): boolean {
    const started = performance.now();
    const built = this.build(state, snapshot, reuseNonce);
    if (!built) return true;
    this.responsesSent += 1;
    const { call } = this;
    const writable =
      built.frame && isSinkCall(call) ? call.writeFrame(built.frame) : call.write(built.message);
    const elapsedMs = performance.now() - started;
    this.afterSend(view, state, built, { snapshot, elapsedMs });
    return writable;
  }

  private afterSend(
    view: StreamView,
    state: TypeState,
    built: BuiltResponse,
    extra: { snapshot: TypeSnapshot; elapsedMs: number },
  ): void {
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
      // Always there, undefined on the mock's own streams: one shape for every response.
      relayed: built.relayed,
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

  protected stopWriting(): void {
    for (const timer of this.delays.values()) clearTimeout(timer);
    this.delays = NO_DELAYS;
  }
}
