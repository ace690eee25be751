import { describe, expect, test } from 'vitest';
import { SentResources } from '../../src/journal/sent-resources.js';
import { ServerEventEmitter, type StreamView } from '../../src/core/events.js';
import { TypeSnapshot } from '../../src/core/snapshot.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

const stream = { connectionId: 'a-1' } as StreamView;

function respond(events: ServerEventEmitter, typeUrl: string, version: string): TypeSnapshot {
  const snapshot = new TypeSnapshot(typeUrl, version, new Map(), 'test');
  events.emit('response', stream, {
    typeUrl,
    version,
    nonce: `${typeUrl}-${version}`,
    count: 0,
    bytes: 0,
    snapshot,
    elapsedMs: 0,
  });
  return snapshot;
}

describe('SentResources', () => {
  test("keeps each type's last response per stream, until the stream closes", () => {
    const events = new ServerEventEmitter();
    const sent = new SentResources(events);
    expect(sent.get(stream.connectionId).size).toBe(0);
    respond(events, CLUSTER_TYPE, 'v1');
    const lds = respond(events, LISTENER_TYPE, 'v1');
    const cds = respond(events, CLUSTER_TYPE, 'v2');
    const types = sent.get(stream.connectionId);
    expect([...types.keys()]).toEqual([CLUSTER_TYPE, LISTENER_TYPE]);
    expect(types.get(CLUSTER_TYPE)).toMatchObject({ version: 'v2', snapshot: cds });
    expect(types.get(LISTENER_TYPE)).toMatchObject({ version: 'v1', snapshot: lds });
    expect(types.get(CLUSTER_TYPE)?.at).toBeInstanceOf(Date);
    events.emit('stream-close', stream, 'closed');
    expect(sent.get(stream.connectionId).size).toBe(0);
  });
});
