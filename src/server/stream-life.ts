/**
 * The states of an ADS stream's life (ads-stream.ts), as `protocol/session.ts` states the
 * session's: each carries what holds in it, so nothing needs a flag checked or a cast.
 */
import type { StreamView } from '../core/events.js';
import type { VerifiedIdentity } from '../core/stream-auth.js';

/**
 * A stream's life, in the order it is lived (any state may end in `closed`). The view is
 * built once, at admission, and shared by every event of the stream: its fields do not
 * change once the stream is open (`types` is the session's live map), so that a push to
 * thousands of streams allocates no view per response.
 */
export type StreamLife = AdmittingState | AdmittedState | OpenState | ClosedState;

/**
 * Requests are read until one carries a node that is let in. Nothing is written; the stream
 * is known only to the server, which ends it on close. Moves on: the first request whose node
 * admission lets in (admitted); a bad node or a refusal (closed).
 */
export interface AdmittingState {
  t: 'admitting';
}

/**
 * The node is let in: its view and the identity that matched it are known, and debug
 * requests are answered. Not registered nor announced: a debug client (istioctl) lives here
 * till its end. Moves on: the first request of a type it is served (open).
 */
export interface AdmittedState {
  t: 'admitted';
  view: StreamView;
  /** The identity that matched the node (istiod's `VerifiedIdentity`), if any. */
  verified: VerifiedIdentity | undefined;
}

/**
 * Registered and announced (`stream-open`), so it announces its close too: requests are
 * reported and what the session owes is written. Moves on: `end()`, or the client's end,
 * cancel or error (closed).
 */
export interface OpenState extends Omit<AdmittedState, 't'> {
  t: 'open';
  /** A flush runs, or waits for `drain` (stream-writer.ts): another one waits for it. */
  flushing: boolean;
}

/** Ended: nothing more is read or written. The view stays readable, if it was built. */
export interface ClosedState {
  t: 'closed';
  view: StreamView | undefined;
}
