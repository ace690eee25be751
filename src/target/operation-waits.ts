/**
 * The control operations that wait (`waitForAck`, `waitForFault`, the journal's long poll): each answers as
 * soon as what it waits for happened (at once when it already has), when its time runs out,
 * when the mock closes, or when its client goes away, whichever comes first; nothing is left
 * listening or timing afterwards. A wait is woken by the one event that may answer it: an
 * ACK or NACK of its type (ack-waiters.ts), a change of its fault, or a journal entry that
 * passes its filter.
 */
import type { AckAwaited, AckQuery, FaultAwaited, FaultQuery } from '../api/answers.js';
import { Refusal } from '../api/operation.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import { shortTypeName } from '../core/types/registry.js';
import type { FaultEngine } from '../faults/engine.js';
import type { FaultInfo } from '../faults/model.js';
import {
  entryMatcher,
  type Journal,
  type JournalEntry,
  type JournalFilter,
} from '../journal/journal.js';
import { ackOf, AckWaiters } from './ack-waiters.js';

export interface WaitParts {
  events: ServerEventEmitter;
  streams(): StreamView[];
  journal(filter: JournalFilter): JournalEntry[];
  journalStore: Pick<Journal, 'addSink' | 'lastSeq'>;
  /** The version of a type the stream's own set serves now. */
  currentVersion(stream: StreamView, typeUrl: string): string | undefined;
  /** Aborted when the mock closes. */
  closed: AbortSignal;
  /** The waiting `waitForAck`s (one per mock: see `createAckWaiters`). */
  acks: AckWaiters;
}

/** Why a wait ended without what it waited for. */
type WaitEnd = 'timeout' | 'closed' | 'gone';

/**
 * Resolves with the first value `subscribe`'s `finish` is given, or with `onEnd(why)` when the
 * time runs out, the mock closes or `signal` (the client gone) aborts. Every way out clears
 * the timer and removes every listener.
 */
function waitFor<T>(
  closed: AbortSignal,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  subscribe: (finish: (value: T) => void) => () => void,
  onEnd: (why: WaitEnd) => T,
): Promise<T> {
  if (closed.aborted) return Promise.resolve(onEnd('closed'));
  if (signal?.aborted) return Promise.resolve(onEnd('gone'));
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: T) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      closed.removeEventListener('abort', onClosed);
      signal?.removeEventListener('abort', onGone);
      resolve(value);
    };
    const onClosed = () => finish(onEnd('closed'));
    const onGone = () => finish(onEnd('gone'));
    const timer = setTimeout(() => finish(onEnd('timeout')), timeoutMs);
    const unsubscribe = subscribe(finish);
    closed.addEventListener('abort', onClosed);
    signal?.addEventListener('abort', onGone);
  });
}

export function waitForAck(
  parts: WaitParts,
  query: AckQuery,
  signal?: AbortSignal,
): Promise<AckAwaited | Refusal> {
  const found = ackOf(parts, query);
  if (found) return Promise.resolve(found);
  const what =
    `${query.ackOnly === true ? 'an ACK' : 'an ACK or NACK'} of ${shortTypeName(query.typeUrl)} version ${query.version ?? '(current)'}` +
    (query.node === undefined ? '' : ` from ${query.node}`);
  return waitFor<AckAwaited | Refusal>(
    parts.closed,
    query.timeoutMs,
    signal,
    (finish) => parts.acks.add({ query, settle: finish }),
    (why) => {
      if (why === 'timeout') {
        return new Refusal(408, `timed out after ${query.timeoutMs} ms waiting for ${what}`, [
          {
            path: 'timeout',
            message: `nothing matched within ${query.timeoutMs} ms (streams seen: ${streamsLine(parts, query)})`,
          },
        ]);
      }
      // No one reads the answer to a client that went away.
      return new Refusal(
        503,
        why === 'closed'
          ? `mock istiod closed while waiting for ${what}`
          : `the client went away while waiting for ${what}`,
      );
    },
  );
}

/**
 * Waits until a fault's trigger has fired (`until: active`: it is active or done) or it is
 * done; 404 when there is no such fault or it is removed meanwhile.
 */
export function waitForFault(
  faults: Pick<FaultEngine, 'events' | 'get'>,
  closed: AbortSignal,
  query: FaultQuery,
  signal?: AbortSignal,
): Promise<FaultAwaited | Refusal> {
  const { id, until, timeoutMs } = query;
  const reached = (fault: FaultInfo) =>
    until === 'done' ? fault.state === 'done' : fault.state !== 'armed';
  const now = faults.get(id);
  if (!now) return Promise.resolve(new Refusal(404, `no fault with id "${id}"`));
  if (reached(now)) return Promise.resolve({ fault: now });
  const what = until === 'done' ? `fault "${id}" to be done` : `fault "${id}"'s trigger to fire`;
  return waitFor<FaultAwaited | Refusal>(
    closed,
    timeoutMs,
    signal,
    (finish) => {
      const onChange = (changed: FaultInfo) => {
        if (changed.id !== id) return;
        const fault = faults.get(id);
        if (!fault) finish(new Refusal(404, `fault "${id}" was removed while waiting for ${what}`));
        else if (reached(fault)) finish({ fault });
      };
      const kinds = ['activated', 'done', 'removed'] as const;
      for (const kind of kinds) faults.events.on(kind, onChange);
      return () => {
        for (const kind of kinds) faults.events.off(kind, onChange);
      };
    },
    (why) => {
      if (why === 'timeout') {
        // The fault as it is, for the client's `lastValue`.
        const fault = faults.get(id);
        const state = fault?.state ?? 'removed';
        const problems = [
          { path: 'timeout', message: `the fault is still ${state} after ${timeoutMs} ms` },
        ];
        return new Refusal(408, `timed out after ${timeoutMs} ms waiting for ${what}`, problems, {
          fault,
        });
      }
      return new Refusal(
        503,
        why === 'closed'
          ? `mock istiod closed while waiting for ${what}`
          : `the client went away while waiting for ${what}`,
      );
    },
  );
}

/** The streams that watch the type, and what they ACKed: what a timed-out wait saw. */
function streamsLine(parts: WaitParts, query: AckQuery): string {
  const seen = parts
    .streams()
    .filter((s) => s.types.has(query.typeUrl))
    .map(
      (s) => `${s.proxy.nodeId} acked ${s.types.get(query.typeUrl)?.acked?.version ?? 'nothing'}`,
    );
  return seen.length > 0 ? seen.join('; ') : 'none watching the type';
}

/**
 * The journal's long poll: the entries that pass `filter` now, or else the first that are
 * journaled within `waitMs`. Each new entry is checked alone against the filter, and the
 * answer is read from the cursor (the last `seq` when the wait began) on: the ring is never
 * copied while a poll waits.
 */
export function waitForJournal(
  parts: WaitParts,
  filter: JournalFilter,
  waitMs: number,
  signal?: AbortSignal,
): Promise<JournalEntry[]> {
  const now = parts.journal(filter);
  if (now.length > 0 || waitMs <= 0) return Promise.resolve(now);
  // Nothing up to here passed the filter: from here on is all there is to read.
  const since = Math.max(filter.since ?? 0, parts.journalStore.lastSeq);
  const matches = entryMatcher(filter);
  return waitFor<JournalEntry[]>(
    parts.closed,
    waitMs,
    signal,
    (finish) => {
      let due = false;
      return parts.journalStore.addSink((entry) => {
        if (due || !matches(entry)) return;
        due = true;
        // Once the entries journaled in the same turn are in too (a push to many streams).
        queueMicrotask(() => finish(parts.journal({ ...filter, since })));
      });
    },
    () => [],
  );
}
