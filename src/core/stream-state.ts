/**
 * What a stream knows about each type it serves, and what each request meant: the shared
 * vocabulary of the sessions (src/protocol), the events, the journal, metrics and debug views.
 */

export interface Sent {
  version: string;
  nonce: string;
  at: Date;
  count: number;
  /**
   * The resources it was drawn from (a type snapshot's map): a version the set pins may come
   * back with other content, and this tells them apart (`TypeSnapshot.differsFrom`).
   */
  content?: unknown;
}

/**
 * How much of a NACK's `error_detail.message` a stream keeps, in characters (the journal, the
 * log, syncz and the page all show what it kept): Envoy writes a few hundred; a client may send
 * megabytes. Option `nackTextMax`, `serve --nack-text-max`.
 */
export const DEFAULT_NACK_TEXT_MAX = 4096;

export interface Nack {
  /** The version Envoy rejected (the one we had sent). */
  version: string;
  nonce: string;
  /** The version Envoy says it still runs (`version_info` of a SotW NACK; empty in delta). */
  keptVersion: string;
  code: number;
  /** Envoy's text, cut to the stream's `nackTextMax` (util/cut-text.ts). */
  message: string;
  at: Date;
}

/** A NACK as the API, syncz and the page show it: its time as an ISO string. */
export type NackInfo = Omit<Nack, 'at'> & { at: string };

export function describeNack(nack: Nack): NackInfo {
  const { version, nonce, keptVersion, code, message, at } = nack;
  return { version, nonce, keptVersion, code, message, at: at.toISOString() };
}

/**
 * A response as a session records it (`TypeState.sent`): its time is kept in milliseconds and
 * made a Date only when read. Every subscribed type of every stream holds one, and a Date
 * costs an idle stream about 90 bytes more than the number.
 */
export class SentRecord implements Sent {
  constructor(
    readonly version: string,
    readonly nonce: string,
    private readonly atMs: number,
    readonly count: number,
    readonly content: unknown,
  ) {}

  get at(): Date {
    return new Date(this.atMs);
  }
}

/** The last ACK of a type (`TypeState.acked`), its time made a Date when read (as above). */
export class AckRecord {
  constructor(
    readonly version: string,
    readonly nonce: string,
    private readonly atMs: number,
  ) {}

  get at(): Date {
    return new Date(this.atMs);
  }
}

/** What a session knows about one subscribed type. */
export interface TypeState {
  typeUrl: string;
  /** `'*'` for a wildcard subscription, else the names asked for (sorted). */
  names: '*' | readonly string[];
  sent: Sent | undefined;
  /**
   * The last ACK: the nonce it acknowledged (istiod's `NonceAcked`) and the version the proxy
   * said it runs (its `version_info`, which after a NACK is the version it kept).
   */
  acked: { version: string; nonce: string; at: Date } | undefined;
  /** The last NACK, cleared by the next ACK. */
  nack: Nack | undefined;
}

/** What a request meant. The stream glue logs and reports each; only some need a response. */
export type RequestOutcome =
  /** `code`: the gRPC status the stream ends with (default INVALID_ARGUMENT). */
  | { kind: 'rejected'; message: string; code?: number }
  /** pilot-agent's health report (HealthInformation): consumed, never answered, as istiod does. */
  | { kind: 'health'; typeUrl: string }
  | { kind: 'subscribe'; typeUrl: string }
  /** SotW: `version` is what the proxy runs. Delta: `version` is empty and `known` counts the
   * resources listed in `initial_resource_versions`. */
  | { kind: 'reconnect'; typeUrl: string; version: string; known?: number }
  /** Names dropped from the subscription (nothing to send). In SotW: an empty list on a type
   * asked for by name (the watch ends), or an ACK that only removes names (an ACK still). */
  | { kind: 'unsubscribe'; typeUrl: string; names: readonly string[] }
  | { kind: 'resubscribe'; typeUrl: string }
  /** The last nonce sent, without an error: `version` is the `version_info` the proxy sent,
   * whatever it is (after a NACK, the version it kept: istiod counts that an ACK too). */
  | { kind: 'ack'; typeUrl: string; version: string; nonce: string }
  | { kind: 'nack'; typeUrl: string; nack: Nack }
  | { kind: 'stale'; typeUrl: string; nonce: string; expected: string | undefined }
  /** One of istiod's debug types (`istio.io/debug…`): answered every time, never watched. */
  | { kind: 'debug'; typeUrl: string; names: readonly string[] };
