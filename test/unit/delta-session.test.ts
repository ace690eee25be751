import { describe, expect, it } from 'vitest';
import { DeltaSession } from '../../src/protocol/delta-session.js';
import { emptyResource, Snapshot, TypeSnapshot } from '../../src/core/snapshot.js';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
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

describe('DeltaSession and the names a request brings', () => {
  it("counts a reconnect's names against the limit, takes them after the first request, and an ACK changes nothing", () => {
    const refused = new DeltaSession();
    refused.maxSubscriptions = 2;
    const over = refused.onRequest(
      request({ node, initial_resource_versions: { a: '1', b: '1', c: '1' } }),
    );
    expect(over).toMatchObject({ kind: 'rejected' });
    expect(over.kind === 'rejected' && over.message).toMatch(/3 resource names in one request/);

    const session = new DeltaSession();
    session.onRequest(request({ node, type_url: ENDPOINT_TYPE, resource_names_subscribe: ['a'] }));
    const state = session.types.get(ENDPOINT_TYPE);
    if (!state) throw new Error('EDS was subscribed');
    const sent = session.next(state, empty.get(ENDPOINT_TYPE), false);
    const ack = session.onRequest(
      request({ type_url: ENDPOINT_TYPE, response_nonce: sent?.nonce }),
    );
    expect(ack.kind).toBe('ack');
    expect(state.names).toEqual(['a']);
    expect(session.hasOwed()).toBe(false);
    // Names only in initial_resource_versions, on a later request: subscribed and answered.
    session.onRequest(request({ type_url: ENDPOINT_TYPE, initial_resource_versions: { b: '1' } }));
    expect(state.names).toEqual(['a', 'b']);
    expect(session.nextOwed()?.typeUrl).toBe(ENDPOINT_TYPE);
  });
});

describe("DeltaSession and istiod's delta answers", () => {
  // Conformance: "Delta: ACKs and NACKs: a subscription in a NACK is dropped".
  it('drops the subscription changes of a NACK, and answers them asked again', () => {
    const session = new DeltaSession();
    session.onRequest(request({ node, type_url: ENDPOINT_TYPE, resource_names_subscribe: ['a'] }));
    const state = session.types.get(ENDPOINT_TYPE);
    if (!state) throw new Error('EDS was subscribed');
    const sent = session.next(state, empty.get(ENDPOINT_TYPE), false);
    expect(sent?.resources.map((r) => r.name)).toEqual(['a']);
    const nack = session.onRequest(
      request({
        type_url: ENDPOINT_TYPE,
        response_nonce: sent?.nonce,
        resource_names_subscribe: ['b'],
        error_detail: { code: 13, message: 'no' },
      }),
    );
    expect(nack.kind).toBe('nack');
    expect(session.hasOwed()).toBe(false);
    expect(state.names).toEqual(['a']);
    session.onRequest(request({ type_url: ENDPOINT_TYPE, resource_names_subscribe: ['b'] }));
    expect(
      session.next(state, empty.get(ENDPOINT_TYPE), false)?.resources.map((r) => r.name),
    ).toEqual(['b']);
  });

  // Conformance: "Delta: subscriptions: a first EDS request with no names stays silent".
  it('sends nothing for EDS with no names, and every cluster for CDS whatever the names', () => {
    const session = new DeltaSession();
    session.onRequest(request({ node, type_url: ENDPOINT_TYPE }));
    const eds = session.types.get(ENDPOINT_TYPE);
    if (!eds) throw new Error('EDS was subscribed');
    expect(session.next(eds, empty.get(ENDPOINT_TYPE), false)).toBeUndefined();
    session.onRequest(request({ type_url: CLUSTER_TYPE, resource_names_subscribe: ['gone'] }));
    const cds = session.types.get(CLUSTER_TYPE);
    if (!cds) throw new Error('CDS was subscribed');
    expect(session.next(cds, empty.get(CLUSTER_TYPE), false)).toMatchObject({
      resources: [],
      removed: ['gone'],
    });
  });

  // The rule behind "Delta: removals": removed_resources is for wildcard types only.
  it('pushes a vanished EDS name as an empty resource, not as a removal', () => {
    const session = new DeltaSession();
    session.onRequest(request({ node, type_url: ENDPOINT_TYPE, resource_names_subscribe: ['a'] }));
    const state = session.types.get(ENDPOINT_TYPE);
    if (!state) throw new Error('EDS was subscribed');
    const a = {
      name: 'a',
      typeUrl: ENDPOINT_TYPE,
      value: new Uint8Array([10, 1, 97]),
      version: 'h1',
    };
    const before = new TypeSnapshot(ENDPOINT_TYPE, 'v1', new Map([['a', a]]), 'test');
    expect(session.next(state, before, false)?.resources).toEqual([a]);
    const after = new TypeSnapshot(ENDPOINT_TYPE, 'v2', new Map(), 'test');
    expect(session.next(state, after, false)).toMatchObject({
      resources: [emptyResource(ENDPOINT_TYPE, 'a')],
      removed: [],
    });
    // Sent once: the next push has nothing to say of it.
    expect(session.next(state, after, false)).toBeUndefined();
  });
});

describe('emptyResource', () => {
  // Conformance: "Delta: removals: an RDS name that never existed is answered with an empty
  // route configuration".
  it("is istiod's answer for an EDS or RDS name it has nothing for, and nothing for others", () => {
    const decode = (typeUrl: string, message: string, name: string) => {
      const resource = emptyResource(typeUrl, name);
      if (!resource) throw new Error(`no empty ${message}`);
      const type = envoyRoot().lookupType(message);
      return type.toObject(type.decode(resource.value));
    };
    expect(decode(ENDPOINT_TYPE, 'envoy.config.endpoint.v3.ClusterLoadAssignment', 'a')).toEqual({
      cluster_name: 'a',
    });
    expect(decode(ROUTE_TYPE, 'envoy.config.route.v3.RouteConfiguration', '80')).toEqual({
      name: '80',
      validate_clusters: {},
    });
    expect(emptyResource(ENDPOINT_TYPE, 'a')).toEqual(emptyResource(ENDPOINT_TYPE, 'a'));
    // Made from a per-type template: names past ASCII, past 127 bytes or empty come out whole.
    for (const name of ['', 'é'.repeat(300), 'n'.repeat(70_000), '\u0000|x']) {
      const message = 'envoy.config.endpoint.v3.ClusterLoadAssignment';
      expect(decode(ENDPOINT_TYPE, message, name)).toEqual(
        name === '' ? {} : { cluster_name: name },
      );
    }
    expect(emptyResource(CLUSTER_TYPE, 'a')).toBeUndefined();
  });
});
