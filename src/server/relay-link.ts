/**
 * What a relayed stream (SotW or delta) keeps of its link to istiod: the upstream stream,
 * opened with the proxy's first request and ended with the proxy's stream; istiod's nonce and
 * version the proxy last got of each type; and the nonces of the responses the mock made
 * itself, so that the proxy's answers to those never reach istiod as answers to it.
 *
 * When istiod ends the upstream stream or cannot be reached, the relay's outage policy
 * decides: `pass` (the default) ends the proxy's stream as a dead istiod would; `hold` keeps
 * it open, the proxy running what it has, and opens the upstream stream again with a growing
 * back-off, asking again for what the proxy watches.
 */
import type * as grpc from '@grpc/grpc-js';
import { GrpcStatus } from '../core/grpc-status.js';
import type { Logger } from 'pino';
import type { StreamView, UpstreamState } from '../core/events.js';
import type { RequestOutcome } from '../core/stream-state.js';
import type { RelayUpstream, UpstreamCall } from './relay-upstream.js';

/** How many of its own nonces a relayed stream remembers: a proxy answers late by fewer. */
const OURS_KEPT = 16;

export interface RelayLinkEvents {
  /** A response from istiod. */
  data(bytes: Buffer): void;
  /** istiod ended the stream: with OK, or with its status and words. */
  end(code: number, message: string): void;
  /**
   * Held through an outage: the requests that ask again for what the proxy watches, but for
   * the type of its first request, which a new upstream stream starts with.
   */
  resubscribe(firstTypeUrl: string): Uint8Array[];
  /** Held through an outage: the upstream stream went (with why), or is back. */
  upstream(state: 'down' | 'up', reason?: string): void;
}

/** The line a held stream logs when its upstream goes, or comes back. */
export function logUpstream(
  log: Logger,
  conId: string,
  state: 'down' | 'up',
  reason: string | undefined,
): void {
  if (state === 'down') {
    log.warn({ conId, reason }, 'relay: upstream istiod lost; holding the stream, reconnecting');
  } else log.info({ conId }, 'relay: upstream istiod answers again; every type was asked again');
}

/** The back-off of a held stream's reconnects: from the first to the longest wait. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export class RelayLink implements UpstreamState {
  private upstream: UpstreamCall | undefined;
  /** The proxy's first request, with its node: what a new upstream stream starts with. */
  private first: { bytes: Uint8Array; typeUrl: string } | undefined;
  private closed = false;
  private answered = false;
  /** Held through an outage: from istiod lost until it answers again (told once each way). */
  private inOutage = false;
  private reconnects = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly ours = new Set<string>();
  /** Per type, the last of istiod's responses the proxy got. */
  readonly delivered = new Map<string, { nonce: string; version: string }>();
  /** Per type, the version istiod last sent (what the stream's view shows). */
  readonly received = new Map<string, string>();

  get address(): string {
    return this.relay?.address ?? '';
  }

  /** Whether istiod has answered on the upstream stream open now. */
  get connected(): boolean {
    return this.upstream !== undefined && this.answered;
  }

  constructor(
    private readonly relay: RelayUpstream | undefined,
    private readonly protocol: 'sotw' | 'delta',
    private readonly events: RelayLinkEvents,
    /** The proxy's own call metadata (its token), for an upstream that authenticates it. */
    private readonly caller: () => grpc.Metadata | undefined = () => undefined,
  ) {}

  /** Writes a request to istiod, opening the upstream stream with the first. */
  write(bytes: Uint8Array, typeUrl: string): void {
    this.first ??= { bytes, typeUrl };
    // Held through an outage: the proxy's requests wait for the stream to come back, which
    // asks again for everything.
    if (this.upstream === undefined && this.timer !== undefined) return;
    (this.upstream ??= this.open()).write(bytes);
  }

  /** A nonce the mock made for a response of its own (a replacement, a copy). */
  made(nonce: string): void {
    this.ours.add(nonce);
    if (this.ours.size > OURS_KEPT) this.ours.delete(this.ours.values().next().value as string);
  }

  /**
   * Takes the proxy's request: the stream's view is shown this link, and the request is
   * written up as it came, unless it answers a response the mock made (a debug request never
   * does). Then nothing goes up here and true says so: the stream sends what may.
   */
  forward(
    view: StreamView | undefined,
    outcome: RequestOutcome,
    request: { bytes: Uint8Array; nonce: string; typeUrl: string },
  ): boolean {
    if (view) view.upstream ??= this;
    const { nonce } = request;
    if (outcome.kind !== 'debug' && nonce !== '' && this.ours.has(nonce)) return true;
    this.write(request.bytes, request.typeUrl);
    return false;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    const upstream = this.upstream;
    this.upstream = undefined;
    upstream?.cancel();
  }

  private open(): UpstreamCall {
    if (!this.relay) throw new Error('a relayed stream without an upstream');
    const call = this.relay.open(this.protocol, this.caller());
    this.answered = false;
    call.on('data', (bytes: Buffer) => {
      this.reconnects = 0;
      this.answered = true;
      if (this.inOutage) {
        this.inOutage = false;
        this.events.upstream('up');
      }
      this.events.data(bytes);
    });
    call.on('error', (err: grpc.ServiceError) => {
      // As istiod ended it: its status and its words, which the proxy would have had.
      this.lost(call, err.code ?? GrpcStatus.UNAVAILABLE, err.details ?? err.message);
    });
    call.on('end', () => this.lost(call, GrpcStatus.OK, 'upstream istiod ended the stream'));
    return call;
  }

  /** The upstream stream ended: passed on to the proxy, or held and opened again. */
  private lost(call: UpstreamCall, code: number, message: string): void {
    if (this.closed || call !== this.upstream) return;
    if (this.relay?.outage !== 'hold') {
      this.events.end(code, message);
      return;
    }
    this.upstream = undefined;
    if (!this.inOutage) {
      this.inOutage = true;
      this.events.upstream('down', message);
    }
    const wait = Math.min(RECONNECT_FIRST_MS * 2 ** this.reconnects, RECONNECT_MAX_MS);
    this.reconnects += 1;
    this.timer = setTimeout(() => this.reopen(), wait);
    this.timer.unref();
  }

  private reopen(): void {
    this.timer = undefined;
    if (this.closed || this.first === undefined) return;
    const call = (this.upstream = this.open());
    call.write(this.first.bytes);
    for (const request of this.events.resubscribe(this.first.typeUrl)) call.write(request);
  }
}
