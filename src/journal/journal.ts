/**
 * The journal: every request classified and every response written, as plain JSON
 * entries, kept in a bounded ring buffer (oldest dropped first) and handed to sinks (such
 * as a JSONL file). It listens to the server's events; it never touches the protocol.
 */
import { globMatches } from '../util/glob.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';

import type { RequestOutcome } from '../core/stream-state.js';
export { JOURNAL_KINDS, type JournalKind } from './kinds.js';
import type { JournalKind } from './kinds.js';

export interface JournalEntry {
  /** Sequence number, from 1, never reused. */
  seq: number;
  time: string;
  kind: JournalKind;
  direction: 'request' | 'response' | 'stream';
  connectionId?: string;
  nodeId?: string;
  peer?: string;
  typeUrl?: string;
  version?: string;
  nonce?: string;
  /** Number of resources in a response. */
  resources?: number;
  bytes?: number;
  /** NACK: Envoy's `error_detail`. */
  errorDetail?: { code: number; message: string };
  /** Stream close / rejection reason. */
  reason?: string;
  /** A relayed response: as istiod sent it (`istiod`), or made by the mock in its place. */
  relayed?: 'istiod' | 'mock';
}

export interface JournalFilter {
  /** Node-id glob (`*orders*`; without `*` or `?`, the exact id), as every node filter. */
  node?: string;
  typeUrl?: string;
  kind?: JournalKind | readonly JournalKind[];
  /** Entries with `seq` greater than this. */
  since?: number;
  limit?: number;
}

export type JournalSink = (entry: JournalEntry) => void;

/** How a sink that can fail is doing (`GET /debug/journal/sinks`, the journal metrics). */
export interface JournalSinkStatus {
  /** What it writes to, e.g. `file:/tmp/journal.jsonl`. */
  name: string;
  /** Lines it took (handed to the file: the last of them may not have reached the disk). */
  written: number;
  /** Lines it could not write (the disk too slow, or after a failure). */
  dropped: number;
  /** Why it stopped writing, once it has (e.g. `ENOSPC`); absent while it works. */
  error?: string;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;
/**
 * The most the journal's entries may hold, in bytes of their texts (an estimate: each entry
 * counts {@link ENTRY_OVERHEAD} plus the length of its strings). Far above what 10,000 entries
 * of a fleet take (about 3 MB); reached only when clients send big texts (node ids, stale
 * nonces), and then the oldest entries go first. Option `journalMaxBytes`.
 */
export const DEFAULT_JOURNAL_MAX_BYTES = 32 * 1024 * 1024;
const ENTRY_OVERHEAD = 160;

/** What `entry` counts against the journal's byte bound. */
function entryBytes(e: JournalEntry): number {
  return (
    ENTRY_OVERHEAD +
    (e.connectionId?.length ?? 0) +
    (e.nodeId?.length ?? 0) +
    (e.peer?.length ?? 0) +
    (e.typeUrl?.length ?? 0) +
    (e.version?.length ?? 0) +
    (e.nonce?.length ?? 0) +
    (e.errorDetail?.message.length ?? 0) +
    (e.reason?.length ?? 0)
  );
}

/** Entries oldest first, filtered (the journal's own query, and a journal file's reader). */
export function filterEntries(
  entries: Iterable<JournalEntry | undefined>,
  filter: JournalFilter = {},
): JournalEntry[] {
  const matches = entryMatcher(filter);
  const out: JournalEntry[] = [];
  for (const entry of entries) {
    if (entry && matches(entry)) out.push(entry);
  }
  return filter.limit === undefined ? out : out.slice(-filter.limit);
}

/** Whether one entry passes the filter (all but `limit`, which counts entries). */
export function entryMatcher(filter: JournalFilter): (entry: JournalEntry) => boolean {
  const kinds = filter.kind === undefined ? undefined : new Set([filter.kind].flat());
  return (entry) =>
    !(filter.since !== undefined && entry.seq <= filter.since) &&
    !(
      filter.node !== undefined &&
      (entry.nodeId === undefined || !globMatches(filter.node, entry.nodeId))
    ) &&
    !(filter.typeUrl !== undefined && entry.typeUrl !== filter.typeUrl) &&
    !(kinds && !kinds.has(entry.kind));
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * The current time as an ISO string, formatted once per millisecond: a push to thousands of
 * streams records two entries per stream within a few milliseconds.
 */
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

export class Journal {
  private readonly ring: (JournalEntry | undefined)[];
  /** What each slot's entry counts against `maxBytes`. */
  private readonly sizes: Uint32Array;
  private next = 0;
  /** Entries held, the newest `count` slots before `next`. */
  private count = 0;
  private bytes = 0;
  private seq = 0;
  private readonly sinks = new Set<JournalSink>();
  private readonly statuses = new Map<JournalSink, () => JournalSinkStatus>();

  constructor(
    readonly size = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes = DEFAULT_JOURNAL_MAX_BYTES,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError('journal size must be a positive integer');
    this.ring = new Array<JournalEntry | undefined>(size);
    this.sizes = new Uint32Array(size);
  }

  record(entry: Omit<JournalEntry, 'seq' | 'time'> & { time?: string }): JournalEntry {
    return this.append({ seq: 0, time: entry.time ?? isoNow(), ...entry });
  }

  /**
   * Records an entry the caller built whole, `seq` first (its value is set here) and `time`
   * second (set here when empty). The server's own events come this way: an entry written as
   * one object literal keeps its fields inside the object, where `record()`'s spread gives it
   * a second array for them, about 70 bytes more for each of the journal's 10,000 entries.
   */
  append(entry: JournalEntry): JournalEntry {
    this.seq += 1;
    entry.seq = this.seq;
    if (entry.time === '') entry.time = isoNow();
    this.keep(entry);
    for (const sink of this.sinks) sink(entry);
    return entry;
  }

  /** Puts `entry` in the ring, then drops the oldest entries while they hold too much. */
  private keep(entry: JournalEntry): void {
    const slot = this.next;
    if (this.ring[slot]) this.bytes -= this.sizes[slot] as number;
    else this.count += 1;
    const bytes = entryBytes(entry);
    this.ring[slot] = entry;
    this.sizes[slot] = bytes;
    this.bytes += bytes;
    this.next = (slot + 1) % this.size;
    while (this.bytes > this.maxBytes && this.count > 1) {
      const oldest = (this.next - this.count + this.size) % this.size;
      this.bytes -= this.sizes[oldest] as number;
      this.ring[oldest] = undefined;
      this.count -= 1;
    }
  }

  /** Entries oldest first, filtered. */
  query(filter: JournalFilter = {}): JournalEntry[] {
    return filterEntries(this.after(filter.since ?? 0), filter);
  }

  /** The `seq` of the last entry journaled (0 before the first): a cursor for `after`. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * The entries after `since`, oldest first, read in place: a long poll that follows the
   * journal reads only what came after its cursor, never a copy of the whole ring.
   */
  *after(since: number): Generator<JournalEntry> {
    const held = Math.min(this.seq, this.size);
    // Entry `seq - held + 1 + k` sits `k` places after the oldest one.
    const skip = Math.min(held, Math.max(0, since - (this.seq - held)));
    const oldest = (this.next - held + this.size) % this.size;
    for (let k = skip; k < held; k += 1) {
      const entry = this.ring[(oldest + k) % this.size];
      if (entry) yield entry;
    }
  }

  /** Adds a sink; `status`, if given, is how it reports its health (see `sinkStatus()`). */
  addSink(sink: JournalSink, status?: () => JournalSinkStatus): () => void {
    this.sinks.add(sink);
    if (status) this.statuses.set(sink, status);
    return () => {
      this.sinks.delete(sink);
      this.statuses.delete(sink);
    };
  }

  /** How many sinks listen now (files, and each waiting long poll). */
  get sinkCount(): number {
    return this.sinks.size;
  }

  /** The health of every sink that reports it. */
  sinkStatus(): JournalSinkStatus[] {
    return [...this.statuses.values()].map((status) => status());
  }

  clear(): void {
    this.ring.fill(undefined);
    this.count = 0;
    this.bytes = 0;
  }
}

/**
 * A request's entry, one object literal per shape, fields in the order `record()` gives them
 * (see `Journal.append`); undefined for what is not journaled.
 */
function requestEntry(stream: StreamView, outcome: RequestOutcome): JournalEntry | undefined {
  const { connectionId } = stream;
  const { nodeId } = stream.proxy;
  const direction = 'request';
  switch (outcome.kind) {
    case 'rejected':
    case 'debug':
    case 'health':
      return undefined;
    case 'ack': {
      const { kind, typeUrl, version, nonce } = outcome;
      return { seq: 0, time: '', kind, direction, connectionId, nodeId, typeUrl, version, nonce };
    }
    case 'nack': {
      const { kind, typeUrl, nack } = outcome;
      return {
        seq: 0,
        time: '',
        kind,
        direction,
        connectionId,
        nodeId,
        typeUrl,
        version: nack.version,
        nonce: nack.nonce,
        errorDetail: { code: nack.code, message: nack.message },
      };
    }
    case 'stale': {
      const { kind, typeUrl, nonce } = outcome;
      return { seq: 0, time: '', kind, direction, connectionId, nodeId, typeUrl, nonce };
    }
    case 'reconnect': {
      const { kind, typeUrl, version } = outcome;
      return { seq: 0, time: '', kind, direction, connectionId, nodeId, typeUrl, version };
    }
    default: {
      const { kind, typeUrl } = outcome;
      return { seq: 0, time: '', kind, direction, connectionId, nodeId, typeUrl };
    }
  }
}

/** Feeds a journal from a server's events; returns a function that stops it. */
export function attachJournal(journal: Journal, events: ServerEventEmitter): () => void {
  const handlers = {
    'stream-open': (stream: StreamView) =>
      journal.append({
        seq: 0,
        time: '',
        kind: 'open',
        direction: 'stream',
        connectionId: stream.connectionId,
        nodeId: stream.proxy.nodeId,
        peer: stream.peer,
      }),
    'stream-close': (stream: StreamView, reason: string) =>
      journal.append({
        seq: 0,
        time: '',
        kind: 'close',
        direction: 'stream',
        connectionId: stream.connectionId,
        nodeId: stream.proxy.nodeId,
        reason,
      }),
    'relay-upstream': (stream: StreamView, state: 'down' | 'up', reason: string | undefined) =>
      journal.append({
        seq: 0,
        time: '',
        kind: state === 'down' ? 'upstream-lost' : 'upstream-back',
        direction: 'stream',
        connectionId: stream.connectionId,
        nodeId: stream.proxy.nodeId,
        ...(reason !== undefined && { reason }),
      }),
    'stream-rejected': (peer: string, message: string) =>
      journal.append({
        seq: 0,
        time: '',
        kind: 'rejected',
        direction: 'stream',
        peer,
        reason: message,
      }),
    request: (stream: StreamView, outcome: RequestOutcome) => {
      const entry = requestEntry(stream, outcome);
      if (entry) journal.append(entry);
    },
    response: (
      stream: StreamView,
      r: {
        typeUrl: string;
        version: string;
        nonce: string;
        count: number;
        bytes: number;
        relayed?: 'istiod' | 'mock';
      },
    ) =>
      journal.append({
        seq: 0,
        time: '',
        kind: 'response',
        direction: 'response',
        connectionId: stream.connectionId,
        nodeId: stream.proxy.nodeId,
        typeUrl: r.typeUrl,
        version: r.version,
        nonce: r.nonce,
        resources: r.count,
        bytes: r.bytes,
        ...(r.relayed && { relayed: r.relayed }),
      }),
  };
  for (const [event, handler] of Object.entries(handlers))
    events.on(event as 'request', handler as never);
  return () => {
    for (const [event, handler] of Object.entries(handlers))
      events.off(event as 'request', handler as never);
  };
}
