import { describe, expect, it } from 'vitest';
import { DeltaSession } from '../../src/protocol/delta-session.js';
import { Snapshot } from '../../src/core/snapshot.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import type { DeltaDiscoveryRequest } from '../../src/xds/wire-delta.js';

const node = {
  id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
  cluster: 'orders.default',
  metadata: {},
  user_agent_name: 'envoy',
  user_agent_version: '',
};

function request(fields: Partial<DeltaDiscoveryRequest>): DeltaDiscoveryRequest {
  return {
    node: undefined,
    type_url: CLUSTER_TYPE,
    resource_names_subscribe: [],
    resource_names_unsubscribe: [],
    initial_resource_versions: {},
    response_nonce: '',
    error_detail: undefined,
    ...fields,
  };
}

const empty = new Snapshot('v1', 'v1', new Map(), 'test');

describe("DeltaSession and istiod's shouldRespondDelta", () => {
  it('answers the first request of a type whatever nonce it carries', () => {
    const session = new DeltaSession();
    const first = session.onRequest(request({ node, response_nonce: 'from-another-istiod' }));
    expect(first.kind).toBe('subscribe');
    expect(session.nextOwed()?.typeUrl).toBe(CLUSTER_TYPE);
    const lds = session.onRequest(
      request({
        type_url: LISTENER_TYPE,
        response_nonce: 'also-unknown',
        initial_resource_versions: { virtualInbound: 'x' },
      }),
    );
    expect(lds).toMatchObject({ kind: 'reconnect', known: 1 });
  });

  it('after the first request, ignores a nonce other than the last one sent', () => {
    const session = new DeltaSession();
    session.onRequest(request({ node, response_nonce: 'unknown' }));
    const state = session.types.get(CLUSTER_TYPE);
    if (!state) throw new Error('CDS was subscribed');
    const sent = session.next(state, empty.get(CLUSTER_TYPE), false);
    expect(sent?.nonce).toBeDefined();
    expect(session.onRequest(request({ response_nonce: 'unknown' })).kind).toBe('stale');
    expect(session.onRequest(request({ response_nonce: sent?.nonce })).kind).toBe('ack');
  });
});
