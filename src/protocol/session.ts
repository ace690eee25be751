/**
 * What every ADS session (state of the world or delta) shares: the stream's lifecycle and
 * the per-type state that debug views and test waiters read, whatever the protocol.
 */
import type { Snapshot } from '../snapshot/snapshot.js';
import type { DecodedNode } from '../xds/wire.js';
import { parseNode, type ProxyIdentity } from './node.js';

/** The stream's lifecycle. */
export type SessionState =
  /** Open, no request yet: the first request must carry the node. */
  | { t: 'awaiting-node' }
  /** The node was accepted; requests are classified per type. */
  | { t: 'serving'; proxy: ProxyIdentity }
  /** Ended by a protocol violation (the stream is closed with `message`). */
  | { t: 'rejected'; message: string };

export interface Sent {
  version: string;
  nonce: string;
  at: Date;
  count: number;
}

export interface Nack {
  /** The version Envoy rejected (the one we had sent). */
  version: string;
  nonce: string;
  /** The version Envoy says it still runs (`version_info` of a SotW NACK; empty in delta). */
  keptVersion: string;
  code: number;
  message: string;
  at: Date;
}

/** What a session knows about one subscribed type. */
export interface TypeState {
  typeUrl: string;
  /** `'*'` for a wildcard subscription, else the names asked for (sorted). */
  names: '*' | readonly string[];
  sent: Sent | undefined;
  acked: { version: string; nonce: string; at: Date } | undefined;
  /** The last NACK, cleared by the next ACK. */
  nack: Nack | undefined;
}

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

/** go-control-plane's wording: ADS multiplexes types, so every request must name one. */
export const MISSING_TYPE_URL = 'type URL is required for ADS';

/** Accepts or rejects the node of a stream's first request (istiod's rules and messages). */
export function acceptNode(node: DecodedNode | undefined): SessionState {
  const parsed = parseNode(node);
  return parsed.ok
    ? { t: 'serving', proxy: parsed.proxy }
    : { t: 'rejected', message: parsed.message };
}

/** Iterates owed type URLs in ADS order: CDS → EDS → LDS → RDS, then any others. */
export function* inAdsOrder(
  owed: ReadonlySet<string>,
  order: readonly string[],
): Generator<string> {
  for (const typeUrl of order) if (owed.has(typeUrl)) yield typeUrl;
  for (const typeUrl of owed) if (!order.includes(typeUrl)) yield typeUrl;
}
