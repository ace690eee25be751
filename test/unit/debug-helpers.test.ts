import { describe, expect, it } from 'vitest';
import { requestInput } from '../../src/api/http-shape.js';
import { journal, journalFilter } from '../../src/api/ops/journal.js';
import type { JournalFilter } from '../../src/journal/journal.js';
import type { Result } from '../../src/util/problems.js';
import { syncState } from '../../src/core/sync-status.js';
import { ConvergenceTracker } from '../../src/metrics/convergence.js';
import { grpcCodeName } from '../../src/metrics/grpc-codes.js';
import { metricLabel } from '../../src/core/types/registry.js';
import type { TypeState } from '../../src/core/stream-state.js';
import type { StreamView } from '../../src/core/events.js';
import { CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';

const at = new Date(0);
function typeState(partial: Partial<TypeState>): TypeState {
  return {
    typeUrl: CLUSTER_TYPE,
    names: '*',
    sent: undefined,
    acked: undefined,
    nack: undefined,
    ...partial,
  };
}
const sent = { version: 'v2', nonce: 'n2', at, count: 1 };

describe('syncState (istiod debugSyncStatus)', () => {
  it('is ERROR after a NACK, NOT SENT before any response, SYNCED when the last nonce was ACKed, else STALE', () => {
    const nack = { version: 'v2', nonce: 'n2', keptVersion: 'v1', code: 13, message: 'bad', at };
    expect(syncState(typeState({ sent, nack }))).toBe('ERROR');
    expect(syncState(typeState({}))).toBe('NOT SENT');
    expect(syncState(typeState({ sent, acked: { version: 'v2', nonce: 'n2', at } }))).toBe(
      'SYNCED',
    );
    expect(syncState(typeState({ sent, acked: { version: 'v1', nonce: 'n1', at } }))).toBe('STALE');
    expect(syncState(typeState({ sent }))).toBe('STALE');
  });
});

describe('istiod metric labels', () => {
  it('names types as istiod does and gRPC codes by their Go names', () => {
    expect(metricLabel(CLUSTER_TYPE)).toBe('cds');
    expect(metricLabel(ROUTE_TYPE)).toBe('rds');
    expect(metricLabel('type.googleapis.com/x.Y')).toBe('type.googleapis.com/x.Y');
    expect(grpcCodeName(13)).toBe('Internal');
    expect(grpcCodeName(3)).toBe('InvalidArgument');
    expect(grpcCodeName(99)).toBe('Code(99)');
  });
});

/** `GET /debug/journal`'s query as the route reads it: the journal operation's input, as a filter. */
function parseJournalQuery(query: URLSearchParams): Result<JournalFilter> {
  const input = requestInput(journal, { params: {}, query, body: undefined });
  return input.ok ? { ok: true, value: journalFilter(input.value) } : input;
}

describe('the journal query', () => {
  it('builds a filter from node, type, kind, since and limit', () => {
    const params = new URLSearchParams(
      'node=orders&type=lds&kind=ACK,nack&kind=stale&since=4&limit=10',
    );
    expect(parseJournalQuery(params)).toEqual({
      ok: true,
      value: {
        node: 'orders',
        typeUrl: LISTENER_TYPE,
        kind: ['ack', 'nack', 'stale'],
        since: 4,
        limit: 10,
      },
    });
    expect(parseJournalQuery(new URLSearchParams())).toEqual({ ok: true, value: {} });
  });

  it('reports every bad parameter by name', () => {
    const result = parseJournalQuery(new URLSearchParams('kind=acks&since=-1&limit=x'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path)).toEqual(['kind', 'since', 'limit']);
  });
});

function view(connectionId: string, typeUrls: string[]): StreamView {
  return {
    connectionId,
    types: new Map(typeUrls.map((t) => [t, typeState({ typeUrl: t })])),
  } as unknown as StreamView;
}

describe('ConvergenceTracker', () => {
  it('observes once a stream got every changed type it subscribes to, from the first change', () => {
    const seen: number[] = [];
    let now = 1_000;
    const tracker = new ConvergenceTracker(
      (s) => seen.push(s),
      () => now,
    );
    const streams = [view('a', [CLUSTER_TYPE, LISTENER_TYPE]), view('b', [CLUSTER_TYPE])];
    tracker.onChange(streams, [CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE], 1_000);
    now = 1_200;
    tracker.onResponse('a', CLUSTER_TYPE);
    tracker.onResponse('b', CLUSTER_TYPE);
    expect(seen).toEqual([0.2]);
    tracker.onChange(streams, [CLUSTER_TYPE], 1_300);
    now = 1_500;
    tracker.onResponse('a', LISTENER_TYPE);
    expect(seen).toEqual([0.2]);
    tracker.onResponse('a', CLUSTER_TYPE);
    expect(seen).toEqual([0.2, 0.5]);
    tracker.onClose('b');
    expect(tracker.waiting).toBe(0);
  });
});
