/**
 * What the live page's hub (ui-hub.ts) gathers between two batches, and the frames each
 * becomes: the journal entries since the last batch, and the proxy rows that changed.
 */
import type { StreamView } from '../core/events.js';
import type { JournalEntry } from '../journal/journal.js';
import { sseFrame } from './ui-client.js';
import { journalRow, proxyRow } from './ui-views.js';

/** Rows above this many changing at once go out at most every BULK_ROWS_MS. */
const BULK_ROWS = 100;
const BULK_ROWS_MS = 2_000;

/**
 * The journal entries since the last batch. It keeps the newest `max` (so the diagram ends
 * where the exchange is); older ones are counted as dropped, trimmed in chunks so that the
 * batch stays under twice that.
 */
export class JournalBatch {
  private entries: JournalEntry[] = [];
  /** The entries that were waiting (withheld or held by a fault) when they came. */
  private readonly waiting = new Set<number>();
  private dropped = 0;

  constructor(private readonly max: number) {}

  /** On the xDS path: a push and a set insertion. */
  add(entry: JournalEntry, waiting: boolean): void {
    this.entries.push(entry);
    if (waiting) this.waiting.add(entry.seq);
    if (this.entries.length >= 2 * this.max) this.trim();
  }

  /** The `journal` frame, or none when nothing came; empties the batch. */
  frames(views: () => Map<string, StreamView>): string[] {
    if (this.entries.length === 0 && this.dropped === 0) return [];
    this.trim();
    const byId = views();
    const rows = this.entries.map((e) =>
      journalRow(e, byId.get(e.connectionId ?? ''), this.waiting.has(e.seq)),
    );
    const frame = sseFrame('journal', { entries: rows, dropped: this.dropped });
    this.clear();
    return [frame];
  }

  clear(): void {
    this.entries = [];
    this.waiting.clear();
    this.dropped = 0;
  }

  private trim(): void {
    const extra = this.entries.length - this.max;
    if (extra <= 0) return;
    for (const entry of this.entries.splice(0, extra)) this.waiting.delete(entry.seq);
    this.dropped += extra;
  }
}

/** The proxy rows that changed since the last batch, each sent only when its JSON did. */
export class ProxyRows {
  private readonly dirty = new Set<string>();
  /** Every row may have changed (an admin API's figures): all are built again. */
  private extrasChanged = false;
  private readonly rowJson = new Map<string, string>();
  private lastBulk = -Infinity;

  markDirty(connectionId: string): void {
    this.dirty.add(connectionId);
  }

  markAll(): void {
    this.extrasChanged = true;
  }

  /**
   * The `proxies` and `proxy-gone` frames; `deferred` when many rows change at once (a push to
   * a fleet) and the last bulk went out less than BULK_ROWS_MS ago: a page cannot show 1,000
   * rows changing faster, so they go out later, the newest state then.
   */
  frames(
    streams: () => StreamView[],
    extras: (stream: StreamView) => Parameters<typeof proxyRow>[1],
  ): { frames: string[]; deferred: boolean } {
    if (this.dirty.size === 0 && !this.extrasChanged) return { frames: [], deferred: false };
    const now = performance.now();
    if (this.dirty.size > BULK_ROWS) {
      if (now - this.lastBulk < BULK_ROWS_MS) return { frames: [], deferred: true };
      this.lastBulk = now;
    }
    const live = new Set<string>();
    const changed: string[] = [];
    for (const stream of streams()) {
      live.add(stream.connectionId);
      if (!this.extrasChanged && !this.dirty.has(stream.connectionId)) continue;
      const json = JSON.stringify(proxyRow(stream, extras(stream)));
      if (this.rowJson.get(stream.connectionId) === json) continue;
      this.rowJson.set(stream.connectionId, json);
      changed.push(json);
    }
    const gone = [...this.dirty].filter((id) => !live.has(id));
    for (const id of gone) this.rowJson.delete(id);
    this.dirty.clear();
    this.extrasChanged = false;
    const frames: string[] = [];
    if (changed.length > 0) frames.push(`event: proxies\ndata: [${changed.join(',')}]\n\n`);
    if (gone.length > 0) frames.push(sseFrame('proxy-gone', { connectionIds: gone }));
    return { frames, deferred: false };
  }

  clear(): void {
    this.dirty.clear();
    this.rowJson.clear();
  }
}
