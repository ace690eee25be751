import { describe, expect, test } from 'vitest';
import { ServerEventEmitter, type StreamView } from '../../src/core/events.js';
import type { ProxyIdentity } from '../../src/core/identity.js';
import { attachJournal, Journal } from '../../src/journal/journal.js';
import type { TypeSnapshot } from '../../src/core/snapshot.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';

const proxy: ProxyIdentity = {
  nodeId: 'sidecar~10.0.0.1~orders-0.default~default.svc.cluster.local',
  type: 'sidecar',
  ipAddresses: ['10.0.0.1'],
  id: 'orders-0.default',
  dnsDomain: 'default.svc.cluster.local',
  cluster: 'orders.default',
  metadata: {},
  clusterId: 'Kubernetes',
  istioVersion: '1.28.0',
};
const stream: StreamView = {
  connectionId: 'orders-0.default-1',
  peer: 'ipv4:127.0.0.1:1',
  connectedAt: new Date(),
  protocol: 'sotw',
  proxy,
  types: new Map(),
};

describe('the journal fed by server events', () => {
  test('writes each kind of entry with its fields in a fixed order, numbered and timed', () => {
    const events = new ServerEventEmitter();
    const journal = new Journal();
    const detach = attachJournal(journal, events);
    const nack = {
      version: 'v1',
      nonce: 'n1',
      keptVersion: '',
      code: 13,
      message: 'bad',
      at: new Date(),
    };
    events.emit('stream-open', stream);
    events.emit('request', stream, { kind: 'subscribe', typeUrl: CLUSTER_TYPE });
    events.emit('response', stream, {
      typeUrl: CLUSTER_TYPE,
      version: 'v1',
      nonce: 'n1',
      count: 2,
      bytes: 100,
      snapshot: {} as TypeSnapshot,
      elapsedMs: 0.1,
    });
    events.emit('request', stream, {
      kind: 'ack',
      typeUrl: CLUSTER_TYPE,
      version: 'v1',
      nonce: 'n1',
    });
    events.emit('request', stream, { kind: 'nack', typeUrl: CLUSTER_TYPE, nack });
    events.emit('request', stream, {
      kind: 'stale',
      typeUrl: CLUSTER_TYPE,
      nonce: 'n0',
      expected: 'n1',
    });
    events.emit('request', stream, { kind: 'reconnect', typeUrl: CLUSTER_TYPE, version: 'v0' });
    events.emit('request', stream, { kind: 'debug', typeUrl: 'istio.io/debug/syncz', names: [] });
    events.emit('stream-close', stream, 'client closed the stream');
    events.emit('stream-rejected', 'ipv4:127.0.0.1:2', 'missing node information');
    detach();
    events.emit('stream-open', stream);

    const entries = journal.query();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const e of entries) expect(new Date(e.time).toISOString()).toBe(e.time);
    const stripped = entries.map((e) => JSON.stringify({ ...e, seq: undefined, time: undefined }));
    const head = `"kind":`;
    const who = `"connectionId":"${stream.connectionId}","nodeId":"${proxy.nodeId}"`;
    const type = `"typeUrl":"${CLUSTER_TYPE}"`;
    expect(stripped).toEqual([
      `{${head}"open","direction":"stream",${who},"peer":"ipv4:127.0.0.1:1"}`,
      `{${head}"subscribe","direction":"request",${who},${type}}`,
      `{${head}"response","direction":"response",${who},${type},"version":"v1","nonce":"n1","resources":2,"bytes":100}`,
      `{${head}"ack","direction":"request",${who},${type},"version":"v1","nonce":"n1"}`,
      `{${head}"nack","direction":"request",${who},${type},"version":"v1","nonce":"n1","errorDetail":{"code":13,"message":"bad"}}`,
      `{${head}"stale","direction":"request",${who},${type},"nonce":"n0"}`,
      `{${head}"reconnect","direction":"request",${who},${type},"version":"v0"}`,
      `{${head}"close","direction":"stream",${who},"reason":"client closed the stream"}`,
      `{${head}"rejected","direction":"stream","peer":"ipv4:127.0.0.1:2","reason":"missing node information"}`,
    ]);
    // seq and time come first, as `record()` writes them.
    expect(Object.keys(entries[0] ?? {}).slice(0, 2)).toEqual(['seq', 'time']);
  });

  test('filters by node with a glob, as every node filter: a bare part of the id matches nothing', () => {
    const events = new ServerEventEmitter();
    const journal = new Journal();
    attachJournal(journal, events);
    const other: StreamView = {
      ...stream,
      connectionId: 'ratings-0.default-2',
      proxy: { ...proxy, nodeId: 'router~10.0.0.2~ratings-0.default~default.svc.cluster.local' },
    };
    events.emit('request', stream, { kind: 'subscribe', typeUrl: CLUSTER_TYPE });
    events.emit('request', other, { kind: 'subscribe', typeUrl: CLUSTER_TYPE });
    const nodes = (node: string) => journal.query({ node }).map((e) => e.connectionId);
    expect(nodes('*orders*')).toEqual(['orders-0.default-1']);
    expect(nodes('router~*')).toEqual(['ratings-0.default-2']);
    expect(nodes('*~*-0.default~*')).toEqual(['orders-0.default-1', 'ratings-0.default-2']);
    expect(nodes(proxy.nodeId)).toEqual(['orders-0.default-1']);
    expect(nodes('orders')).toEqual([]);
    expect(nodes('sidecar~10.0.0.?~orders-0.default~default.svc.cluster.local')).toEqual([
      'orders-0.default-1',
    ]);
  });
});
