/**
 * The waiting `waitForAck`s, by type, behind one listener on the server's events. An ACK or
 * NACK wakes only the waits for its type, and each looks at the one stream that sent it: a
 * request costs nothing when no one waits, and never a scan of every stream. A new snapshot
 * changes what "the current version" is, so it is the one event that looks at every stream
 * again (resource changes are rare next to requests). The listener is there only while a wait
 * is.
 */
import type { AckAwaited, AckQuery } from '../api/answers.js';
import { describeNack } from '../core/stream-state.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { RequestOutcome } from '../core/stream-state.js';
import { matchesGlob } from '../util/glob.js';

export interface AckSource {
  events: ServerEventEmitter;
  streams(): StreamView[];
  /** The version of a type the stream's own set serves now. */
  currentVersion(stream: StreamView, typeUrl: string): string | undefined;
}

/** A waiting wait: what it waits for, and how it is answered. */
export interface AckWaiter {
  readonly query: AckQuery;
  settle(found: AckAwaited): void;
}

/** Whether the query's node filter (if any) takes this node id: the one place it is matched. */
export function nodeMatches(query: AckQuery, nodeId: string): boolean {
  return matchesGlob(query.node, nodeId);
}

/** What one stream ACKed or NACKed of the wanted version, as the operation answers it. */
export function ackOfStream(
  source: AckSource,
  query: AckQuery,
  stream: StreamView,
): AckAwaited | undefined {
  if (!nodeMatches(query, stream.proxy.nodeId)) return undefined;
  const state = stream.types.get(query.typeUrl);
  if (!state) return undefined;
  const version = query.version ?? source.currentVersion(stream, query.typeUrl);
  if (version === undefined) return undefined;
  const who = { typeUrl: query.typeUrl, version, nodeId: stream.proxy.nodeId };
  const connectionId = stream.connectionId;
  if (state.acked?.version === version) return { result: 'ack', ...who, connectionId };
  if (state.nack?.version === version && query.ackOnly !== true) {
    return { result: 'nack', ...who, connectionId, nack: describeNack(state.nack) };
  }
  return undefined;
}

/** The first stream that ACKed or NACKed the wanted version (a scan: once per wait). */
export function ackOf(source: AckSource, query: AckQuery): AckAwaited | undefined {
  for (const stream of source.streams()) {
    const found = ackOfStream(source, query, stream);
    if (found) return found;
  }
  return undefined;
}

export class AckWaiters {
  private readonly byType = new Map<string, Set<AckWaiter>>();
  private count = 0;

  constructor(private readonly source: AckSource) {}

  /** How many waits are waiting. */
  get size(): number {
    return this.count;
  }

  /** Adds a wait; returns the function that removes it (idempotent). */
  add(waiter: AckWaiter): () => void {
    const { typeUrl } = waiter.query;
    let waiters = this.byType.get(typeUrl);
    if (!waiters) this.byType.set(typeUrl, (waiters = new Set()));
    waiters.add(waiter);
    this.count += 1;
    if (this.count === 1) this.listen(true);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      waiters.delete(waiter);
      if (waiters.size === 0) this.byType.delete(typeUrl);
      this.count -= 1;
      if (this.count === 0) this.listen(false);
    };
  }

  private listen(on: boolean): void {
    const { events } = this.source;
    if (on) {
      events.on('request', this.onRequest);
      events.on('snapshot', this.onSnapshot);
    } else {
      events.off('request', this.onRequest);
      events.off('snapshot', this.onSnapshot);
    }
  }

  private readonly onRequest = (stream: StreamView, outcome: RequestOutcome): void => {
    if (!('typeUrl' in outcome)) return;
    const waiters = this.byType.get(outcome.typeUrl);
    if (!waiters) return;
    // A copy: settling a wait removes it from the set.
    for (const waiter of [...waiters]) {
      const found = ackOfStream(this.source, waiter.query, stream);
      if (found) waiter.settle(found);
    }
  };

  private readonly onSnapshot = (): void => {
    for (const waiters of [...this.byType.values()]) {
      for (const waiter of [...waiters]) {
        const found = ackOf(this.source, waiter.query);
        if (found) waiter.settle(found);
      }
    }
  };
}
