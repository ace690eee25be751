/**
 * What a relayed stream (SotW or delta) keeps of its link to istiod: the upstream stream,
 * opened with the proxy's first request and ended with the proxy's stream; istiod's nonce and
 * version the proxy last got of each type; and the nonces of the responses the mock made
 * itself, so that the proxy's answers to those never reach istiod as answers to it.
 */
import * as grpc from '@grpc/grpc-js';
import type { RelayUpstream, UpstreamCall } from './relay-upstream.js';

/** How many of its own nonces a relayed stream remembers: a proxy answers late by fewer. */
const OURS_KEPT = 16;

export interface RelayLinkEvents {
  /** A response from istiod. */
  data(bytes: Buffer): void;
  /** istiod ended the stream: with OK, or with its status and words. */
  end(code: grpc.status, message: string): void;
}

export class RelayLink {
  private upstream: UpstreamCall | undefined;
  private readonly ours = new Set<string>();
  /** Per type, the last of istiod's responses the proxy got. */
  readonly delivered = new Map<string, { nonce: string; version: string }>();

  constructor(
    private readonly relay: RelayUpstream | undefined,
    private readonly protocol: 'sotw' | 'delta',
    private readonly events: RelayLinkEvents,
  ) {}

  /** Writes a request to istiod, opening the upstream stream with the first. */
  write(bytes: Uint8Array): void {
    (this.upstream ??= this.open()).write(bytes);
  }

  /** A nonce the mock made for a response of its own (a replacement, a copy). */
  made(nonce: string): void {
    this.ours.add(nonce);
    if (this.ours.size > OURS_KEPT) this.ours.delete(this.ours.values().next().value as string);
  }

  isOurs(nonce: string): boolean {
    return nonce !== '' && this.ours.has(nonce);
  }

  close(): void {
    const upstream = this.upstream;
    this.upstream = undefined;
    upstream?.cancel();
  }

  private open(): UpstreamCall {
    if (!this.relay) throw new Error('a relayed stream without an upstream');
    const call = this.relay.open(this.protocol);
    call.on('data', (bytes: Buffer) => this.events.data(bytes));
    call.on('error', (err: grpc.ServiceError) => {
      // As istiod ended it: its status and its words, which the proxy would have had.
      this.events.end(err.code ?? grpc.status.UNAVAILABLE, err.details ?? err.message);
    });
    call.on('end', () => this.events.end(grpc.status.OK, 'upstream istiod ended the stream'));
    return call;
  }
}
