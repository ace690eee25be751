import pino from 'pino';
import { describe, expect, test } from 'vitest';
import type { ProxyIdentity } from '../../src/core/identity.js';
import { attachCollisionWarnings } from '../../src/app/collisions.js';
import { ServerEventEmitter, type NodeCollision, type StreamView } from '../../src/core/events.js';

function stream(
  connectionId: string,
  pod: string,
  clusterId = 'Kubernetes',
  ip = '10.0.0.1',
): StreamView {
  const proxy: ProxyIdentity = {
    nodeId: `sidecar~${ip}~${pod}.default~default.svc.cluster.local`,
    type: 'sidecar',
    ipAddresses: [ip],
    id: `${pod}.default`,
    dnsDomain: 'default.svc.cluster.local',
    cluster: 'orders.default',
    metadata: {},
    clusterId,
    istioVersion: '1.28.0',
  };
  return {
    connectionId,
    peer: 'ipv4:127.0.0.1:1',
    connectedAt: new Date(),
    protocol: 'sotw',
    proxy,
    types: new Map(),
  };
}

describe('collision warnings', () => {
  test('index open streams: a collision names only the streams still open', () => {
    const events = new ServerEventEmitter();
    const detach = attachCollisionWarnings(events, pino({ level: 'silent' }));
    const seen: NodeCollision[] = [];
    events.on('collision', (c) => seen.push(c));
    const [a, b, c] = [stream('a', 'orders-0'), stream('b', 'orders-0'), stream('c', 'orders-0')];

    events.emit('stream-open', a);
    events.emit('stream-open', stream('other', 'payments-0'));
    expect(seen).toEqual([]);

    events.emit('stream-open', b);
    expect(seen.map((x) => x.streams.map((s) => s.connectionId))).toEqual([['a', 'b']]);
    expect(seen[0]?.key).toBe(
      'node id "sidecar~10.0.0.1~orders-0.default~default.svc.cluster.local"',
    );

    // Once `a` has gone, a newcomer collides with `b` alone.
    events.emit('stream-close', a, 'client closed the stream');
    events.emit('stream-open', c);
    expect(seen.map((x) => x.streams.map((s) => s.connectionId))).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);

    // Nobody left with that identity: no collision; and after detach nothing is reported.
    events.emit('stream-close', b, 'closed');
    events.emit('stream-close', c, 'closed');
    events.emit('stream-open', stream('d', 'orders-0'));
    detach();
    events.emit('stream-open', stream('e', 'orders-0'));
    expect(seen).toHaveLength(2);
  });

  test('the same pod in another CLUSTER_ID does not collide; in the same one it does', () => {
    const events = new ServerEventEmitter();
    attachCollisionWarnings(events, pino({ level: 'silent' }));
    const keys: string[] = [];
    events.on('collision', (c) => keys.push(c.key));
    // Different IPs, so different node ids: only the pod identity can collide.
    const east = stream('x', 'orders-0', 'east', '10.0.0.1');
    const west = stream('y', 'orders-0', 'west', '10.0.0.2');
    const east2 = stream('z', 'orders-0', 'east', '10.0.0.3');
    events.emit('stream-open', east);
    events.emit('stream-open', west);
    expect(keys).toEqual([]);
    events.emit('stream-open', east2);
    expect(keys).toEqual(['pod "orders-0.default" in CLUSTER_ID "east"']);
  });

  test('many streams with one node id: each warning names the oldest few and counts them all', () => {
    const events = new ServerEventEmitter();
    type Line = { msg: string; connections: string[]; count?: number };
    const lines: Line[] = [];
    const log = pino(
      { level: 'warn' },
      { write: (l: string) => lines.push(JSON.parse(l) as Line) },
    );
    attachCollisionWarnings(events, log);
    const seen: NodeCollision[] = [];
    events.on('collision', (c) => seen.push(c));
    const all = Array.from({ length: 1_000 }, (_, i) => stream(`s${i}`, 'storm-0'));
    for (const s of all) events.emit('stream-open', s);

    // The second stream collides with the first: both named, as before.
    expect(seen[0]?.streams.map((s) => s.connectionId)).toEqual(['s0', 's1']);
    expect(seen[0]?.count).toBe(2);
    expect(lines[0]?.count).toBeUndefined();
    // The last event names the four oldest and itself, and counts all 1,000.
    expect(seen).toHaveLength(999);
    const last = seen.at(-1);
    expect(last?.streams.map((s) => s.connectionId)).toEqual(['s0', 's1', 's2', 's3', 's999']);
    expect(last?.count).toBe(1_000);
    // Logged: every collision up to five streams, then at 8, 16, … 512 streams (a line each),
    // naming five, not 500,000 names in all.
    expect(lines.map((l) => l.count ?? l.connections.length)).toEqual([
      2, 3, 4, 5, 8, 16, 32, 64, 128, 256, 512,
    ]);
    expect(lines.at(-1)?.connections).toHaveLength(5);
    expect(lines.at(-1)?.msg).toMatch(/\(512 connections, 5 named\)$/);

    // Once the oldest have gone, the next newcomer names the oldest still open.
    for (const s of all.slice(0, 3)) events.emit('stream-close', s, 'closed');
    events.emit('stream-open', stream('late', 'storm-0'));
    expect(seen.at(-1)?.streams.map((s) => s.connectionId)).toEqual([
      's3',
      's4',
      's5',
      's6',
      'late',
    ]);
    expect(seen.at(-1)?.count).toBe(998);
  });
});
