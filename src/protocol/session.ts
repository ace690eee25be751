/**
 * What every ADS session (state of the world or delta) shares: the stream's lifecycle and
 * the per-type state that debug views and test waiters read, whatever the protocol.
 */
import type { Snapshot } from '../core/snapshot.js';
import type { DecodedNode } from '../xds/wire.js';
import { parseNode } from './node.js';
import { OwedTypes } from './owed-types.js';
import { type ProxyIdentity } from '../core/identity.js';
import {
  DEFAULT_NACK_TEXT_MAX,
  type RequestOutcome,
  type TypeState,
} from '../core/stream-state.js';
import { cutText } from '../util/cut-text.js';
import { freshUuid } from '../util/fresh-uuid.js';

/** The stream's lifecycle. */
export type SessionState =
  /** Open, no request yet: the first request must carry the node. */
  | { t: 'awaiting-node' }
  /** The node was accepted; requests are classified per type. */
  | { t: 'serving'; proxy: ProxyIdentity }
  /** Ended by a protocol violation (the stream is closed with `code`, by default
   * INVALID_ARGUMENT, and `message`). */
  | { t: 'rejected'; message: string; code?: number };

/** The part of a session the stream glue drives, whatever the protocol. */
export interface StreamSession {
  readonly state: SessionState;
  readonly proxy: ProxyIdentity | undefined;
  readonly types: ReadonlyMap<string, TypeState>;
  /** The next type owed a response, in ADS order, among those `allowed`. */
  nextOwed(allowed?: (typeUrl: string) => boolean): TypeState | undefined;
  hasOwed(): boolean;
  /** A new snapshot is current: mark what must be pushed. */
  onSnapshot(snapshot: Snapshot): void;
  /** Marks subscribed types (all, or these) owed again: a push forced from outside. */
  owe(typeUrls?: readonly string[]): void;
}

/** What pilot-agent reports the application's health with (istiod's HealthInfoType). */
export const HEALTH_INFO_TYPE = 'type.googleapis.com/istio.v1.HealthInformation';

/** Accepts or rejects the node of a stream's first request (istiod's rules and messages). */
export function acceptNode(node: DecodedNode | undefined): SessionState {
  const parsed = parseNode(node);
  return parsed.ok
    ? { t: 'serving', proxy: parsed.proxy }
    : { t: 'rejected', message: parsed.message, code: parsed.code };
}

/**
 * How many subscriptions one stream may hold by default: each resource name it watches, and
 * each type it watches (a type with no names counts one). istiod sets no limit; a client
 * chooses the names, so the mock must, and this is far above any real proxy's (a sidecar in
 * a mesh of 10,000 services watches about 20,000 names). `maxSubscriptions` changes it.
 */
export const DEFAULT_MAX_SUBSCRIPTIONS = 100_000;

/** gRPC's RESOURCE_EXHAUSTED, the status of a stream past its subscription limit. */
const RESOURCE_EXHAUSTED = 8;

/**
 * What both sessions share: the lifecycle, the per-type states and the set of types owed a
 * response, answered in ADS order.
 */
export abstract class BaseSession<S extends TypeState> implements StreamSession {
  state: SessionState = { t: 'awaiting-node' };
  readonly types = new Map<string, S>();
  protected readonly owed = new OwedTypes();
  /** The stream's subscriptions (see DEFAULT_MAX_SUBSCRIPTIONS), kept as requests change them. */
  private subscriptions = 0;
  /** The most subscriptions the stream may hold; past it the stream ends (see `settle`). */
  maxSubscriptions = DEFAULT_MAX_SUBSCRIPTIONS;

  /**
   * `now`, the clock in milliseconds, defaults to one shared function: a closure per session
   * costs an idle stream 56 bytes.
   */
  constructor(
    protected readonly now: () => number = Date.now,
    /** The most of a NACK's text kept, in characters ({@link DEFAULT_NACK_TEXT_MAX}). */
    private readonly nackTextMax = DEFAULT_NACK_TEXT_MAX,
  ) {}

  /** A NACK's `error_detail.message`, cut to what the stream keeps of it. */
  protected nackText(message: string | undefined): string {
    return cutText(message ?? '', this.nackTextMax);
  }

  abstract onSnapshot(snapshot: Snapshot): void;

  /** The subscriptions a type holds now: 0 when unwatched, else at least 1. */
  protected abstract weightOf(typeUrl: string): number;

  /** Counts a change in `typeUrl`'s subscriptions (it held `before`). */
  protected recount(typeUrl: string, before: number): void {
    this.subscriptions += this.weightOf(typeUrl) - before;
  }

  /**
   * Counts what a request changed in `typeUrl`'s subscriptions (it held `before`); past
   * `maxSubscriptions` the stream is rejected with RESOURCE_EXHAUSTED, so that no client can
   * grow a stream's memory without bound by subscribing names.
   */
  protected settle(typeUrl: string, before: number): RequestOutcome | undefined {
    this.recount(typeUrl, before);
    if (this.subscriptions <= this.maxSubscriptions) return undefined;
    return this.refuseOver(`${this.subscriptions} resource names and types`);
  }

  /**
   * Ends the stream for holding, or asking for, `what`: more than `maxSubscriptions`.
   * A request that alone names more is refused before its names are stored (see
   * DeltaSession.onRequest), so that its cost stays that of decoding it.
   */
  protected refuseOver(what: string): RequestOutcome {
    const message =
      `too many subscriptions on one stream: ${what}, more than the limit of ` +
      `${this.maxSubscriptions} (option maxSubscriptions, serve --max-subscriptions)`;
    this.state = { t: 'rejected', message, code: RESOURCE_EXHAUSTED };
    return { kind: 'rejected', message, code: RESOURCE_EXHAUSTED };
  }

  get proxy(): ProxyIdentity | undefined {
    return this.state.t === 'serving' ? this.state.proxy : undefined;
  }

  /**
   * The checks every request passes first: the stream's first request must carry a node
   * istiod would accept. A health report is consumed whenever it comes: sent before the first
   * request, istiod skips it whole, node included (the next request must carry the node).
   * An empty type URL is not refused here: istiod hands it, as any type it has no generator
   * for, to its `api` generator (server/admission.ts). Returns the outcome when the request
   * stops here.
   */
  protected admit(node: DecodedNode | undefined, typeUrl: string): RequestOutcome | undefined {
    if (typeUrl === HEALTH_INFO_TYPE && this.state.t !== 'rejected') {
      return { kind: 'health', typeUrl };
    }
    if (this.state.t === 'awaiting-node') this.state = acceptNode(node);
    if (this.state.t === 'rejected') {
      return { kind: 'rejected', message: this.state.message, code: this.state.code };
    }
    return undefined;
  }

  nextOwed(allowed: (typeUrl: string) => boolean = () => true): S | undefined {
    if (this.owed.isEmpty()) return undefined;
    const typeUrl = this.owed.first(allowed);
    return typeUrl === undefined ? undefined : this.types.get(typeUrl);
  }

  hasOwed(): boolean {
    return !this.owed.isEmpty();
  }

  owe(typeUrls?: readonly string[]): void {
    for (const typeUrl of this.types.keys()) {
      if (!typeUrls || typeUrls.includes(typeUrl)) this.owed.add(typeUrl);
    }
  }
}

/**
 * The nonce of the next response of a type, in SotW and delta alike: as istiod makes it, the
 * response's version followed by a fresh UUID (`2026-12-01T18:41:04Z/31048114c9-…`), so
 * that an ACK or NACK names exactly the response it answers; or, with `reuseNonce` (the
 * stale fault), the nonce of the response sent before.
 */
export function nextNonce(state: TypeState, reuseNonce: boolean, version: string): string {
  return reuseNonce && state.sent ? state.sent.nonce : version + freshUuid();
}
