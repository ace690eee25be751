/**
 * The page's state after each event of the stream (src/live/ui-events.ts): a `snapshot`
 * replaces everything; the other events update their part. Unknown events change nothing.
 */
import type {
  UiEvent,
  UiProxy,
  UiFaultMarker,
  UiJournalEntry,
  UiSnapshot,
} from '../../../src/live/ui-events.js';
import {
  EMPTY_STATE,
  EXCHANGE_LIMIT,
  GONE_LIMIT,
  SAMPLE_LIMIT,
  type ExchangeItem,
  type PageState,
  type ProxyRow,
} from './state.js';

const last = <T>(items: T[], limit: number): T[] =>
  items.length > limit ? items.slice(items.length - limit) : items;

const entryItem = (entry: UiJournalEntry): ExchangeItem => ({
  key: `j${entry.seq}`,
  time: Date.parse(entry.time),
  entry,
});

const markerItem = (marker: UiFaultMarker): ExchangeItem => ({
  key: `f${marker.fault.id}-${marker.action}-${marker.time}`,
  time: Date.parse(marker.time),
  marker,
});

function fromSnapshot(snapshot: UiSnapshot, dropped: number): PageState {
  return {
    received: true,
    state: snapshot.state,
    columns: snapshot.columns,
    proxies: snapshot.proxies,
    faults: snapshot.faults,
    exchange: last(snapshot.journal.map(entryItem), EXCHANGE_LIMIT),
    samples: last(snapshot.stats, SAMPLE_LIMIT),
    admins: snapshot.admins,
    catalogue: snapshot.catalogue,
    lang: snapshot.lang,
    dropped,
  };
}

/**
 * Rows replaced by connection id, new ones added; a proxy that comes back (same node id, new
 * stream) replaces its own ended row.
 */
function updateProxies(rows: ProxyRow[], changed: UiProxy[]): ProxyRow[] {
  const byId = new Map(changed.map((p) => [p.connectionId, p]));
  const known = new Set(rows.map((p) => p.connectionId));
  const added = changed.filter((p) => !known.has(p.connectionId));
  const returning = new Set(added.map((p) => p.nodeId));
  const kept = rows
    .filter((p) => !(p.gone && returning.has(p.nodeId)))
    .map((p) => byId.get(p.connectionId) ?? p);
  return [...kept, ...added];
}

/** Keeps the last {@link GONE_LIMIT} ended rows. */
function dropOldGone(rows: ProxyRow[]): ProxyRow[] {
  const gone = rows.filter((p) => p.gone);
  const drop = new Set(gone.slice(0, Math.max(0, gone.length - GONE_LIMIT)));
  return rows.filter((p) => !drop.has(p));
}

export function reduce(page: PageState, event: UiEvent): PageState {
  switch (event.type) {
    case 'snapshot':
      return fromSnapshot(event.data, page.dropped);
    case 'proxies':
      return { ...page, proxies: updateProxies(page.proxies, event.data) };
    case 'proxy-gone': {
      const gone = new Set(event.data.connectionIds);
      const rows = page.proxies.map((p) => (gone.has(p.connectionId) ? { ...p, gone: true } : p));
      return { ...page, proxies: dropOldGone(rows) };
    }
    case 'journal':
      return {
        ...page,
        exchange: last([...page.exchange, ...event.data.entries.map(entryItem)], EXCHANGE_LIMIT),
        dropped: page.dropped + event.data.dropped,
      };
    case 'stats':
      return { ...page, samples: last([...page.samples, ...event.data], SAMPLE_LIMIT) };
    case 'faults':
      return { ...page, faults: event.data };
    case 'fault':
      return {
        ...page,
        exchange: last([...page.exchange, markerItem(event.data)], EXCHANGE_LIMIT),
      };
    case 'state':
      return { ...page, state: event.data };
    case 'admins':
      return { ...page, admins: event.data };
    case 'gap':
      return { ...page, dropped: page.dropped + event.data.dropped };
    default:
      return page;
  }
}

export { EMPTY_STATE };
