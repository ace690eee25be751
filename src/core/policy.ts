/**
 * The seam between a stream's session and the wire. Before each response a stream asks the
 * response policy what to do with it: send it, hold it, delay it, replace it, or end the
 * stream instead. The protocol code stays correct and small; misbehaviour lives behind this
 * interface (the withhold switch below, and the fault scenarios).
 *
 * A held or delayed response is not queued: the type stays owed, and when the policy lets it
 * go the stream sends the version current at that moment.
 */
import type { TypeSnapshot } from './snapshot.js';
import type { StreamView } from './events.js';

export interface ResponseQuery {
  stream: StreamView;
  protocol: 'sotw' | 'delta';
  typeUrl: string;
  /** What would be sent: the current snapshot of the type. */
  snapshot: TypeSnapshot;
  /** Responses already written on this stream (all types). */
  responsesSent: number;
}

export type ResponseDecision =
  | { kind: 'send' }
  /** Not now; ask again when the policy reports a change. */
  | { kind: 'hold' }
  /** Send after `ms` milliseconds (the stream asks no more for this response). */
  | { kind: 'delay'; ms: number }
  /** Send these resources of the type instead (for example a config Envoy must reject);
   * `reuseNonce` sends the previous response's nonce again (a stale response). */
  | { kind: 'replace'; snapshot: TypeSnapshot; reuseNonce?: boolean }
  /** End the stream with this status instead of responding. */
  | { kind: 'end'; code: number; message: string };

export interface ResponsePolicy {
  decide(query: ResponseQuery): ResponseDecision;
  /** Registers a listener called whenever held responses may now pass. */
  onChange(listener: () => void): () => void;
}

const SEND: ResponseDecision = Object.freeze({ kind: 'send' });
const HOLD: ResponseDecision = Object.freeze({ kind: 'hold' });

export interface WithholdSwitch extends ResponsePolicy {
  readonly withheld: boolean;
  withhold(): void;
  /** Lets held responses go; returns whether anything was being withheld. */
  release(): boolean;
}

/** Hold every response while withheld (`--withhold-first`, `POST /control/release`). */
export function createWithholdSwitch(initiallyWithheld: boolean): WithholdSwitch {
  let withheld = initiallyWithheld;
  const listeners = new Set<() => void>();
  return {
    get withheld() {
      return withheld;
    },
    decide: () => (withheld ? HOLD : SEND),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    withhold() {
      withheld = true;
    },
    release() {
      const was = withheld;
      withheld = false;
      for (const listener of listeners) listener();
      return was;
    },
  };
}

/** Policies in order: the first that does not say `send` decides. */
export function combinePolicies(...policies: ResponsePolicy[]): ResponsePolicy {
  return {
    decide(query) {
      for (const policy of policies) {
        const decision = policy.decide(query);
        if (decision.kind !== 'send') return decision;
      }
      return SEND;
    },
    onChange(listener) {
      const offs = policies.map((p) => p.onChange(listener));
      return () => offs.forEach((off) => off());
    },
  };
}
