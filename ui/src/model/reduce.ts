/**
 * The page's state after each event of the stream (src/control/ui-events.ts): a `snapshot`
 * replaces everything; the other events update their part. Unknown events change nothing.
 */
import type {
  UiEvent,
  UiFaultMarker,
  UiJournalEntry,
  UiSnapshot,
} from '../../../src/control/ui-events.js';
import {
  EMPTY_STATE,
  EXCHANGE_LIMIT,
  SAMPLE_LIMIT,
  type ExchangeItem,
  type PageState,
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
    // Added to the contract later, perhaps: the mock's --lang.
    lang: (snapshot as { lang?: string }).lang,
    dropped,
  };
}

export function reduce(page: PageState, event: UiEvent): PageState {
  switch (event.type) {
    case 'snapshot':
      return fromSnapshot(event.data, page.dropped);
    case 'proxies': {
      const changed = new Map(event.data.map((p) => [p.connectionId, p]));
      const kept = page.proxies.map((p) => changed.get(p.connectionId) ?? p);
      const added = event.data.filter(
        (p) => !page.proxies.some((q) => q.connectionId === p.connectionId),
      );
      return { ...page, proxies: [...kept, ...added] };
    }
    case 'proxy-gone': {
      const gone = new Set(event.data.connectionIds);
      return { ...page, proxies: page.proxies.filter((p) => !gone.has(p.connectionId)) };
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
