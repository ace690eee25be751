/**
 * The control operations that wait (`waitForAck`, the journal's long poll): each answers as
 * soon as what it waits for happened (at once when it already has), when its time runs out,
 * or when the mock closes, whichever comes first; nothing is left listening afterwards.
 */
import { describeNack, type AckAwaited, type AckQuery } from '../api/answers.js';
import { Refusal } from '../api/operation.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import { shortTypeName } from '../core/types/registry.js';
import { matchesGlob } from '../util/glob.js';
import type { Journal, JournalEntry, JournalFilter } from '../journal/journal.js';

export interface WaitParts {
  events: ServerEventEmitter;
  streams(): StreamView[];
  journal(filter: JournalFilter): JournalEntry[];
  journalStore: Pick<Journal, 'addSink'>;
  /** The version of a type the stream's own set serves now. */
  currentVersion(stream: StreamView, typeUrl: string): string | undefined;
  /** Aborted when the mock closes. */
  closed: AbortSignal;
}

/**
 * Resolves with `check()`'s first value, checked now and after each `subscribe` callback, or
 * with `onEnd(reason)` when the time runs out or the mock closes.
 */
function waitUntil<T>(
  parts: WaitParts,
  timeoutMs: number,
  check: () => T | undefined,
  subscribe: (listener: () => void) => () => void,
  onEnd: (why: 'timeout' | 'closed') => T,
): Promise<T> {
  const found = check();
  if (found !== undefined) return Promise.resolve(found);
  if (parts.closed.aborted) return Promise.resolve(onEnd('closed'));
  return new Promise((resolve) => {
    const finish = (value: T) => {
      clearTimeout(timer);
      unsubscribe();
      parts.closed.removeEventListener('abort', closed);
      resolve(value);
    };
    const closed = () => finish(onEnd('closed'));
    const timer = setTimeout(() => finish(onEnd('timeout')), timeoutMs);
    const unsubscribe = subscribe(() => {
      const value = check();
      if (value !== undefined) finish(value);
    });
    parts.closed.addEventListener('abort', closed);
  });
}

/** The first stream that ACKed or NACKed the wanted version, as the operation answers it. */
function ackOf(parts: WaitParts, query: AckQuery): AckAwaited | undefined {
  for (const stream of parts.streams()) {
    if (!matchesGlob(query.node, stream.proxy.nodeId)) continue;
    const state = stream.types.get(query.typeUrl);
    if (!state) continue;
    const version = query.version ?? parts.currentVersion(stream, query.typeUrl);
    if (version === undefined) continue;
    const who = { typeUrl: query.typeUrl, version, nodeId: stream.proxy.nodeId };
    const connectionId = stream.connectionId;
    if (state.acked?.version === version) return { result: 'ack', ...who, connectionId };
    if (state.nack?.version === version) {
      return { result: 'nack', ...who, connectionId, nack: describeNack(state.nack) };
    }
  }
  return undefined;
}

export function waitForAck(parts: WaitParts, query: AckQuery): Promise<AckAwaited | Refusal> {
  const what =
    `an ACK or NACK of ${shortTypeName(query.typeUrl)} version ${query.version ?? '(current)'}` +
    (query.node === undefined ? '' : ` from ${query.node}`);
  return waitUntil<AckAwaited | Refusal>(
    parts,
    query.timeoutMs,
    () => ackOf(parts, query),
    (listener) => {
      parts.events.on('request', listener);
      // A new version makes "the current version" another one.
      parts.events.on('snapshot', listener);
      return () => {
        parts.events.off('request', listener);
        parts.events.off('snapshot', listener);
      };
    },
    (why) =>
      why === 'closed'
        ? new Refusal(503, `mock istiod closed while waiting for ${what}`)
        : new Refusal(408, `timed out after ${query.timeoutMs} ms waiting for ${what}`, [
            {
              path: 'timeout',
              message: `nothing matched within ${query.timeoutMs} ms (streams seen: ${streamsLine(parts, query)})`,
            },
          ]),
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

export function waitForJournal(
  parts: WaitParts,
  filter: JournalFilter,
  waitMs: number,
): Promise<JournalEntry[]> {
  const check = () => {
    const entries = parts.journal(filter);
    return entries.length > 0 ? entries : undefined;
  };
  if (waitMs <= 0) return Promise.resolve(parts.journal(filter));
  return waitUntil(
    parts,
    waitMs,
    check,
    // After the entry is in the ring, so that the query finds it.
    (listener) => parts.journalStore.addSink(() => queueMicrotask(listener)),
    () => [],
  );
}
