/**
 * istiod's connection rate limit (pilot/pkg/xds `WaitForRequestLimit`): new ADS streams are let
 * in at a steady rate with a burst of 1. A stream whose turn comes within a second waits for
 * it; one whose turn would come later is refused at once with RESOURCE_EXHAUSTED and the words
 * of Go's rate.Limiter. istiod checks it when a stream opens, before it authenticates the
 * stream and before it reads a request; Envoy retries with backoff, and that is how a storm of
 * reconnects is spread out.
 *
 * The bucket follows golang.org/x/time/rate's reservations (burst 1): a waiting stream holds its
 * turn, so the tokens go below zero, and a stream that goes away while it waits gives its turn
 * back.
 */
import { GrpcStatus } from '../core/grpc-status.js';
import { availableParallelism } from 'node:os';
import type { AdsCall } from './ads-service.js';

/** How long a stream may wait for its turn (istiod: a 1 s context). */
export const STREAM_TURN_WAIT_MS = 1_000;
/** istiod's ceiling on its default rate. */
const MAX_DEFAULT_STREAMS_PER_SECOND = 100;

/** rate.Limiter.Wait's error when the turn would come after the 1 s deadline. */
export const RATE_WAIT_ERROR = 'rate: Wait(n=1) would exceed context deadline';
/** istiod's status details for a stream turned away. */
export const RATE_LIMIT_MESSAGE = `request rate limit exceeded: ${RATE_WAIT_ERROR}`;

/**
 * istiod's default rate, min(15 + 5 × GOMAXPROCS, 100). Go's GOMAXPROCS defaults to the CPUs
 * the process may run on; Node's nearest equivalent is os.availableParallelism() (25 on two
 * cores, 100 from 17 cores up).
 */
export function defaultStreamsPerSecond(cores = availableParallelism()): number {
  return Math.min(15 + 5 * cores, MAX_DEFAULT_STREAMS_PER_SECOND);
}

/** A stream's turn: how long it waits for it, and how it hands it back when it goes away. */
export interface StreamTurn {
  delayMs: number;
  cancel(): void;
}

/** A token bucket of burst 1 that refills at `perSecond`; `reserve` is undefined when refused. */
export interface StreamRateLimiter {
  reserve(): StreamTurn | undefined;
}

export function createStreamRateLimiter(
  perSecond: number,
  now: () => number = () => performance.now(),
): StreamRateLimiter {
  const msPerToken = 1_000 / perSecond;
  let tokens = 1;
  let last = now();
  let lastTurn = last;
  const advance = (t: number) => Math.min(1, tokens + Math.max(0, t - last) / msPerToken);
  return {
    reserve() {
      const t = now();
      const left = advance(t) - 1;
      const delayMs = left < 0 ? -left * msPerToken : 0;
      if (delayMs > STREAM_TURN_WAIT_MS) return undefined;
      const at = t + delayMs;
      tokens = left;
      last = t;
      lastTurn = at;
      return {
        delayMs,
        cancel() {
          const t2 = now();
          if (at <= t2) return;
          // The turns taken after this one keep theirs: only what is left is given back.
          const restore = 1 - (lastTurn - at) / msPerToken;
          if (restore <= 0) return;
          tokens = Math.min(1, advance(t2) + restore);
          last = t2;
          if (at === lastTurn) lastTurn = at - msPerToken;
        },
      };
    },
  };
}

/** Ends a refused stream; the server emits its events and counts it. */
export type RefuseStream = (call: AdsCall, code: number, message: string) => void;

/**
 * The server's hook: `admit(call, start)` runs `start` when the stream's turn comes (at once
 * when the limit is off), or refuses it. `endWaiting` ends the streams still waiting, for a
 * server that closes.
 */
export interface StreamAdmission {
  admit(call: AdsCall, start: () => void): void;
  endWaiting(code: number, message: string): void;
}

export function createStreamAdmission(
  limiter: StreamRateLimiter | undefined,
  refuse: RefuseStream,
): StreamAdmission {
  const waiting = new Map<AdsCall, () => void>();
  return {
    admit(call, start) {
      const turn = limiter?.reserve() ?? (limiter ? undefined : { delayMs: 0, cancel() {} });
      if (!turn) return refuse(call, GrpcStatus.RESOURCE_EXHAUSTED, RATE_LIMIT_MESSAGE);
      if (turn.delayMs <= 0) return start();
      const stop = () => {
        clearTimeout(timer);
        call.off('cancelled', gone);
        waiting.delete(call);
      };
      const gone = () => {
        stop();
        turn.cancel();
      };
      const timer = setTimeout(() => {
        stop();
        start();
      }, turn.delayMs);
      call.once('cancelled', gone);
      waiting.set(call, gone);
    },
    endWaiting(code, message) {
      for (const [call, gone] of [...waiting]) {
        gone();
        refuse(call, code, message);
      }
    },
  };
}
