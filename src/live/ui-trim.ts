/**
 * How much the live page is sent of what clients choose. A page's stream is ended when more
 * than its hard limit waits in its buffer (ui-client.ts), so a snapshot must never come near
 * it: each row's texts and lists are cut (`trimRow`), and a snapshot that is still too big
 * loses its oldest journal rows, stat samples, then rows of other kinds, until it fits
 * (`snapshotFrame`), saying what it left out. A page that connects always gets a snapshot.
 */
import { cutText } from '../util/cut-text.js';
import { sseFrame } from './ui-client.js';
import type { UiSnapshot } from './ui-events.js';

/** The most characters of one text a row carries (a NACK, a node id, a version). */
export const UI_TEXT_MAX = 1024;
/** The most items of one list a row carries (the names a stream watches). */
export const UI_LIST_MAX = 100;
/** The most bytes a `snapshot` event takes (at most half a page's hard limit). */
export const UI_SNAPSHOT_MAX_BYTES = 2 * 1024 * 1024;

/**
 * `value` with every string longer than {@link UI_TEXT_MAX} cut (util/cut-text.ts) and every
 * list longer than {@link UI_LIST_MAX} cut to that many items (and, for a list of texts, a last
 * one saying how many more there were). Values that need no cut are returned as they are, without a copy.
 */
export function trimRow<T>(value: T): T {
  return trim(value) as T;
}

function trim(value: unknown): unknown {
  if (typeof value === 'string') return cutText(value, UI_TEXT_MAX);
  if (Array.isArray(value)) {
    const kept = value.length > UI_LIST_MAX ? value.slice(0, UI_LIST_MAX) : value;
    const items = kept.map(trim);
    // A list of texts says how many it left out; a list of rows only loses its tail.
    if (value.length > UI_LIST_MAX && items.every((item) => typeof item === 'string')) {
      items.push(`…[${value.length - UI_LIST_MAX} more]`);
    }
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const trimmed = trim(item);
    if (trimmed !== item) (copy ??= { ...value })[key] = trimmed;
  }
  return copy ?? value;
}

/** The lists a snapshot gives up, in this order, when it is too big. */
const DROPPED_FIRST = ['journal', 'stats', 'proxies', 'admins', 'faults'] as const;

/**
 * The `snapshot` event for `snapshot`, at most `maxBytes` long when its lists can be made that
 * short: the oldest half of the first list left is dropped until it fits, and
 * `snapshot.trimmed` counts what each list lost.
 */
export function snapshotFrame(snapshot: UiSnapshot, maxBytes = UI_SNAPSHOT_MAX_BYTES): string {
  let frame = sseFrame('snapshot', snapshot);
  const trimmed: Record<string, number> = {};
  while (Buffer.byteLength(frame) > maxBytes) {
    const list = DROPPED_FIRST.find((name) => snapshot[name].length > 0);
    if (list === undefined) break;
    const rows = snapshot[list] as unknown[];
    // The newest rows stay: journal and stats are oldest first; proxies keep their order.
    const drop = Math.ceil(rows.length / 2);
    snapshot = { ...snapshot, [list]: rows.slice(drop) };
    trimmed[list] = (trimmed[list] ?? 0) + drop;
    frame = sseFrame('snapshot', { ...snapshot, trimmed });
  }
  return frame;
}
