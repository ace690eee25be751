import { describe, expect, it } from 'vitest';
import { SnapshotHistory } from '../../src/faults/history.js';
import { TypeSnapshot } from '../../src/core/snapshot.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

const snap = (version: string) => new TypeSnapshot(CLUSTER_TYPE, version, new Map(), 'test');

describe('SnapshotHistory', () => {
  it('remembers per stream what came before a version, and forgets a closed stream', () => {
    const history = new SnapshotHistory();
    const [v1, v2, v3] = [snap('v1'), snap('v2'), snap('v3')];
    for (const s of [v1, v2, v2, v3]) history.record('a', s);
    history.record('b', v3);
    expect(history.before('a', CLUSTER_TYPE, 'v3')).toBe(v2);
    expect(history.before('a', CLUSTER_TYPE, 'v1')).toBeUndefined();
    expect(history.before('b', CLUSTER_TYPE, 'v3')).toBeUndefined();
    expect(history.find('a', CLUSTER_TYPE, 'v1')).toBe(v1);
    history.forget('a');
    expect(history.find('a', CLUSTER_TYPE, 'v1')).toBeUndefined();
  });

  it('keeps the last eight versions of a type', () => {
    const history = new SnapshotHistory();
    for (let i = 0; i < 12; i++) history.record('a', snap(`v${i}`));
    expect(history.find('a', CLUSTER_TYPE, 'v3')).toBeUndefined();
    expect(history.find('a', CLUSTER_TYPE, 'v4')?.version).toBe('v4');
  });

  it('keeps each type apart', () => {
    const history = new SnapshotHistory();
    const lds = (version: string) => new TypeSnapshot(LISTENER_TYPE, version, new Map(), 'test');
    const [c1, l1, c2, l2] = [snap('v1'), lds('v1'), snap('v2'), lds('v2')];
    for (const s of [c1, l1, c2, l2]) history.record('a', s);
    expect(history.before('a', CLUSTER_TYPE, 'v2')).toBe(c1);
    expect(history.before('a', LISTENER_TYPE, 'v2')).toBe(l1);
    expect(history.find('a', LISTENER_TYPE, 'v1')).toBe(l1);
    expect(history.find('a', CLUSTER_TYPE, 'v3')).toBeUndefined();
  });
});
