/**
 * The kinds of journal entry, on their own: the journal operation's input names them, and the
 * live page bundles that, without the journal itself.
 */
import type { RequestOutcome } from '../core/stream-state.js';

/** Debug requests (istioctl's) are answered apart and never journaled, nor health reports. */
export type JournalKind =
  | 'open'
  | 'close'
  | 'rejected'
  | 'response'
  /** A relayed stream's istiod went away (held through it), or came back. */
  | 'upstream-lost'
  | 'upstream-back'
  | Exclude<RequestOutcome['kind'], 'rejected' | 'debug' | 'health'>;

/** Every kind, in the order a stream's story goes (`GET /debug/journal?kind=` takes them). */
export const JOURNAL_KINDS = [
  'open',
  'close',
  'rejected',
  'response',
  'subscribe',
  'reconnect',
  'resubscribe',
  'unsubscribe',
  'ack',
  'nack',
  'stale',
  'upstream-lost',
  'upstream-back',
] as const satisfies readonly JournalKind[];

// Fails to compile when the journal learns a kind this list does not name.
type Unlisted = Exclude<JournalKind, (typeof JOURNAL_KINDS)[number]>;
const everyKindListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyKindListed;
