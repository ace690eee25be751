/**
 * The live page's state, as the stream's events build it (ui/src/model): a snapshot replaces
 * everything, incremental events update their part, the chart's lines come from the admin
 * samples, and a withheld request waits until its response.
 */
import { describe, expect, it } from 'vitest';
import type {
  UiJournalEntry,
  UiProxy,
  UiSnapshot,
  UiStatSample,
} from '../../src/live/ui-events.js';
import { buildChart, statValue } from '../../ui/src/model/chart.js';
import { stillWaiting } from '../../ui/src/model/exchange.js';
import { EMPTY_STATE, reduce } from '../../ui/src/model/reduce.js';
import type { ExchangeItem, PageState } from '../../ui/src/model/state.js';

const ADMIN = 'http://127.0.0.1:15000';

function proxy(connectionId: string, name: string, ready: UiProxy['ready'] = '1/2'): UiProxy {
  return {
    connectionId,
    nodeId: `sidecar~127.0.0.1~${name}.default~default.svc.cluster.local`,
    proxy: `${name}.default`,
    name,
    namespace: 'default',
    clusterId: 'Kubernetes',
    istioVersion: '1.29.0',
    protocol: 'sotw',
    proxyless: false,
    peer: '127.0.0.1:40000',
    connectedAt: '2026-12-01T10:00:00.000Z',
    ready,
    envoy: { admin: ADMIN },
    types: [],
  };
}

function entry(seq: number, fields: Partial<UiJournalEntry>): UiJournalEntry {
  return {
    seq,
    time: `2026-12-01T10:00:0${seq}.000Z`,
    kind: 'subscribe',
    direction: 'request',
    connectionId: 'c1',
    ...fields,
  };
}

function snapshot(fields: Partial<UiSnapshot> = {}): UiSnapshot {
  return {
    version: 1,
    at: '2026-12-01T10:00:00.000Z',
    addresses: {},
    state: { withheld: true, serving: true },
    columns: ['CDS', 'LDS'],
    proxies: [proxy('c1', 'orders-v1-0')],
    faults: [],
    journal: [entry(1, { kind: 'open', direction: 'stream' })],
    stats: [],
    admins: [],
    catalogue: { scenarios: ['nack'], nacks: [] },
    ...fields,
  };
}

const sample = (at: number, admin: string, values: Record<string, number>): UiStatSample => ({
  at,
  admin,
  values,
});

describe('the page state', () => {
  it('takes a snapshot whole, then applies the incremental events', () => {
    let page: PageState = reduce(EMPTY_STATE, { type: 'snapshot', data: snapshot() });
    expect(page.received).toBe(true);
    expect(page.lang).toBeUndefined();
    expect(reduce(page, { type: 'snapshot', data: snapshot({ lang: 'ko' }) }).lang).toBe('ko');
    expect(page.proxies.map((p) => p.ready)).toEqual(['1/2']);

    page = reduce(page, { type: 'proxies', data: [proxy('c1', 'orders-v1-0', '2/2')] });
    page = reduce(page, { type: 'proxies', data: [proxy('c2', 'orders-v1-1')] });
    expect(page.proxies.map((p) => `${p.name} ${p.ready}`)).toEqual([
      'orders-v1-0 2/2',
      'orders-v1-1 1/2',
    ]);
    // A stream that ends leaves its row, marked, until the same node connects again.
    page = reduce(page, { type: 'proxy-gone', data: { connectionIds: ['c1'] } });
    expect(page.proxies.map((p) => `${p.name} ${p.ready} ${p.gone ?? false}`)).toEqual([
      'orders-v1-0 2/2 true',
      'orders-v1-1 1/2 false',
    ]);
    page = reduce(page, { type: 'proxies', data: [proxy('c3', 'orders-v1-0')] });
    expect(page.proxies.map((p) => `${p.connectionId} ${p.gone ?? false}`)).toEqual([
      'c2 false',
      'c3 false',
    ]);

    page = reduce(page, { type: 'state', data: { withheld: false, serving: false } });
    expect(page.state).toEqual({ withheld: false, serving: false });
    page = reduce(page, {
      type: 'journal',
      data: { entries: [entry(2, { kind: 'ack' })], dropped: 3 },
    });
    expect(page.exchange.map((i) => i.key)).toEqual(['j1', 'j2']);
    expect(page.dropped).toBe(3);

    // After a gap, a fresh snapshot replaces what the page held; the dropped count stays.
    page = reduce(page, { type: 'gap', data: { dropped: 10 } });
    page = reduce(page, { type: 'snapshot', data: snapshot({ proxies: [] }) });
    expect(page.proxies).toEqual([]);
    expect(page.dropped).toBe(13);
    expect(reduce(page, { type: 'nothing-known' } as never)).toBe(page);
  });
});

describe('the chart', () => {
  it('draws connected_state and the update counters summed over types, per admin', () => {
    const other = 'http://127.0.0.1:16000';
    const chart = buildChart(
      [
        sample(1000, ADMIN, {
          'control_plane.connected_state': 1,
          'cluster_manager.cds.update_success': 1,
          'listener_manager.lds.update_success': 2,
          'listener_manager.lds.update_rejected': 1,
        }),
        sample(2000, other, { 'control_plane.connected_state': 0 }),
      ],
      (s) => (s.admin === ADMIN ? 'orders-v1-0' : 'east'),
    );
    expect(chart.times).toEqual([1, 2]);
    expect(chart.series.map((s) => [s.label, s.values])).toEqual([
      ['orders-v1-0 connected_state', [1, null]],
      ['orders-v1-0 update_success', [3, null]],
      ['orders-v1-0 update_rejected', [1, null]],
      ['east connected_state', [null, 0]],
    ]);
    expect(statValue(sample(0, ADMIN, {}), 'update_success')).toBeUndefined();
  });
});

describe('the sequence diagram', () => {
  const item = (e: UiJournalEntry): ExchangeItem => ({ key: `j${e.seq}`, time: 0, entry: e });

  it('shows a withheld request waiting until a response of its type follows on its stream', () => {
    const cds = { typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster' };
    const lds = { typeUrl: 'type.googleapis.com/envoy.config.listener.v3.Listener' };
    const items = [
      entry(1, { ...cds, waiting: true }),
      entry(2, { ...lds, waiting: true }),
      entry(3, { ...cds, waiting: true, connectionId: 'c2' }),
      entry(4, { ...cds, kind: 'response', direction: 'response' }),
    ].map(item);
    expect([...stillWaiting(items)].sort()).toEqual([2, 3]);
    const closed = [...items, item(entry(5, { kind: 'close', direction: 'stream' }))];
    expect([...stillWaiting(closed)]).toEqual([3]);
  });
});
