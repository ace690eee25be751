import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SotwSession } from '../../src/protocol/sotw-session.js';
import { nextNonce } from '../../src/protocol/session.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import type { DiscoveryRequest } from '../../src/xds/wire.js';
import { Snapshot } from '../../src/core/snapshot.js';

/** An empty snapshot: every type answers at `version`. */
const snapshotAt = (version: string) => new Snapshot(version, version, new Map(), 'test');

const node = {
  id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
  cluster: 'orders.default',
  metadata: { CLUSTER_ID: 'east' },
  user_agent_name: 'envoy',
  user_agent_version: '',
};

function request(fields: Partial<DiscoveryRequest>): DiscoveryRequest {
  return {
    version_info: '',
    node: undefined,
    resource_names: [],
    type_url: CLUSTER_TYPE,
    response_nonce: '',
    error_detail: undefined,
    ...fields,
  };
}

function servingSession(): SotwSession {
  const session = new SotwSession();
  session.onRequest(request({ node }));
  session.recordSent(CLUSTER_TYPE, 'v1', 'n1', 2);
  return session;
}

describe('SotwSession', () => {
  it('parses the node once and keeps it for the stream', () => {
    const session = servingSession();
    expect(session.proxy).toMatchObject({
      id: 'orders-v1-0.default',
      clusterId: 'east',
      ipAddresses: ['10.0.0.1'],
    });
    expect(session.onRequest(request({ type_url: LISTENER_TYPE })).kind).toBe('subscribe');
  });

  it('owes CDS before LDS whatever order they were asked in (ADS order)', () => {
    const session = new SotwSession();
    session.onRequest(request({ node, type_url: LISTENER_TYPE }));
    session.onRequest(request({ type_url: CLUSTER_TYPE }));
    expect(session.nextOwed()?.typeUrl).toBe(CLUSTER_TYPE);
  });

  it('classifies ACK, NACK and stale; the request after a NACK is an ACK', () => {
    const session = servingSession();
    expect(session.onRequest(request({ response_nonce: 'old', version_info: 'v1' })).kind).toBe(
      'stale',
    );
    const nack = session.onRequest(
      request({
        response_nonce: 'n1',
        version_info: 'v0',
        error_detail: { code: 13, message: 'bad' },
      }),
    );
    expect(nack).toMatchObject({
      kind: 'nack',
      nack: { version: 'v1', keptVersion: 'v0', message: 'bad' },
    });
    expect(session.hasOwed()).toBe(false);
    // Envoy sends its request again without error_detail, still on v0: istiod counts it an
    // ACK of the nonce, and clears the error (conformance: "SotW: ACKs: after a NACK, the
    // same nonce without an error is an ACK: acked, error cleared").
    expect(session.onRequest(request({ response_nonce: 'n1', version_info: 'v0' }))).toMatchObject({
      kind: 'ack',
      version: 'v0',
      nonce: 'n1',
    });
    expect(session.types.get(CLUSTER_TYPE)?.nack).toBeUndefined();
    expect(session.types.get(CLUSTER_TYPE)?.acked).toMatchObject({ version: 'v0', nonce: 'n1' });
    expect(session.hasOwed()).toBe(false);

    session.recordSent(CLUSTER_TYPE, 'v2', 'n2', 2);
    expect(session.onRequest(request({ response_nonce: 'n2', version_info: 'v2' }))).toMatchObject({
      kind: 'ack',
      version: 'v2',
    });
  });

  it('records a NACK whatever its nonce, and answers none (istiod reads error_detail first)', () => {
    // Conformance: "SotW: NACKs: a NACK with an empty nonce / a stale nonce …".
    const session = servingSession();
    session.recordSent(CLUSTER_TYPE, 'v2', `v2${randomUUID()}`, 2);
    for (const nonce of ['', 'n1', `v1${randomUUID()}`]) {
      const outcome = session.onRequest(
        request({ response_nonce: nonce, error_detail: { code: 13, message: `bad ${nonce}` } }),
      );
      expect(outcome.kind).toBe('nack');
      expect(session.types.get(CLUSTER_TYPE)?.nack?.message).toBe(`bad ${nonce}`);
      expect(session.hasOwed()).toBe(false);
    }
    // The rejected version is the one the nonce was sent at (it begins with it).
    expect(session.types.get(CLUSTER_TYPE)?.nack?.version).toBe('v1');
  });

  it("istiod's ShouldRespond: the first request of a type is answered whatever nonce it carries", () => {
    // istioctl's client puts the current time in response_nonce of its first request.
    const session = new SotwSession();
    const first = session.onRequest(request({ node, response_nonce: '2026-12-01 07:00:00 +0000' }));
    expect(first.kind).toBe('subscribe');
    expect(session.nextOwed()?.typeUrl).toBe(CLUSTER_TYPE);
    const reconnect = session.onRequest(
      request({
        type_url: LISTENER_TYPE,
        response_nonce: 'from-another-istiod',
        version_info: 'v9',
      }),
    );
    expect(reconnect).toMatchObject({ kind: 'reconnect', version: 'v9' });
  });

  it("istiod's ShouldRespond: once a type is known, a nonce other than the last sent is stale", () => {
    const session = new SotwSession();
    session.onRequest(request({ node, response_nonce: 'unknown' }));
    // Nothing sent yet (withheld): any nonce is stale, as istiod's empty NonceSent makes it.
    expect(session.onRequest(request({ response_nonce: 'unknown' })).kind).toBe('stale');
    session.recordSent(CLUSTER_TYPE, 'v1', 'n1', 2);
    expect(session.onRequest(request({ response_nonce: 'unknown' })).kind).toBe('stale');
    expect(session.onRequest(request({ response_nonce: 'n1', version_info: 'v1' })).kind).toBe(
      'ack',
    );
  });

  it('owes a type again only when its version moved', () => {
    const session = servingSession();
    session.onSnapshot(snapshotAt('v1'));
    expect(session.hasOwed()).toBe(false);
    session.onSnapshot(snapshotAt('v2'));
    expect(session.nextOwed()?.typeUrl).toBe(CLUSTER_TYPE);
  });

  it('answers names added on an ACK with those alone, and removal with nothing', () => {
    // Conformance: "SotW: subscription changes on an ACK".
    const session = servingSession();
    session.onRequest(request({ type_url: ENDPOINT_TYPE, resource_names: ['b', 'a', 'a'] }));
    const eds = session.types.get(ENDPOINT_TYPE);
    if (!eds) throw new Error('EDS was subscribed');
    expect(eds.names).toEqual(['a', 'b']);
    session.recordSent(ENDPOINT_TYPE, 'v1', 'e1', 2);
    const ack = (names: string[]) =>
      session.onRequest(
        request({
          type_url: ENDPOINT_TYPE,
          response_nonce: 'e1',
          version_info: 'v1',
          resource_names: names,
        }),
      );
    expect(ack(['a'])).toMatchObject({ kind: 'unsubscribe', names: ['b'] });
    expect(session.hasOwed()).toBe(false);
    expect(ack(['a', 'c'])).toMatchObject({ kind: 'resubscribe' });
    expect(session.nextOwed()?.typeUrl).toBe(ENDPOINT_TYPE);
    expect(session.responseNames(eds)).toEqual(['c']);
    session.recordSent(ENDPOINT_TYPE, 'v1', 'e2', 1);
    expect(session.responseNames(eds)).toEqual(['a', 'c']);
  });

  it('ends the watch of a by-name type on an empty list, without an answer', () => {
    // Conformance: "SotW: empty resource_names".
    const session = servingSession();
    expect(session.onRequest(request({ type_url: ENDPOINT_TYPE })).kind).toBe('unsubscribe');
    expect(session.types.has(ENDPOINT_TYPE)).toBe(false);
    expect(session.hasOwed()).toBe(false);
  });

  it('sends CDS and LDS whole whatever names they list, "*" included', () => {
    // Conformance: "SotW: CDS and LDS asked by name".
    const session = servingSession();
    session.onRequest(request({ type_url: LISTENER_TYPE, resource_names: ['*'] }));
    expect(session.types.get(LISTENER_TYPE)?.names).toBe('*');
    session.onRequest(request({ type_url: LISTENER_TYPE, resource_names: ['one'] }));
    expect(session.types.get(LISTENER_TYPE)?.names).toBe('*');
    session.onRequest(request({ type_url: ENDPOINT_TYPE, resource_names: ['*'] }));
    expect(session.types.get(ENDPOINT_TYPE)?.names).toEqual(['*']);
  });

  it('answers the next EDS ACK after a new CDS watch, once', () => {
    // Conformance: "SotW: EDS after CDS".
    const session = servingSession();
    session.onRequest(request({ type_url: ENDPOINT_TYPE, resource_names: ['a'] }));
    session.recordSent(ENDPOINT_TYPE, 'v1', 'e1', 1);
    const edsAck = () =>
      session.onRequest(
        request({ type_url: ENDPOINT_TYPE, response_nonce: 'e1', resource_names: ['a'] }),
      );
    session.onRequest(request({ type_url: CLUSTER_TYPE }));
    session.recordSent(CLUSTER_TYPE, 'v1', 'n2', 2);
    expect(edsAck().kind).toBe('ack');
    expect(session.nextOwed()?.typeUrl).toBe(ENDPOINT_TYPE);
    session.recordSent(ENDPOINT_TYPE, 'v1', 'e1', 1);
    edsAck();
    expect(session.hasOwed()).toBe(false);
  });
});

describe('nextNonce', () => {
  it('is the version and a fresh UUID for every response, and the last one again only when reused', () => {
    const session = servingSession();
    const state = session.types.get(CLUSTER_TYPE);
    if (!state) throw new Error('CDS was subscribed');
    const version = '2026-12-01T18:41:04Z/3';
    const fresh = nextNonce(state, false, version);
    // istiod's shape (conformance: "ACKs and NACKs"): the version, then a UUID.
    expect(fresh).toMatch(
      /^2026-12-01T18:41:04Z\/3[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(nextNonce(state, false, version)).not.toBe(fresh);
    expect(nextNonce(state, true, version)).toBe('n1');
    // Nothing sent yet: nothing to reuse, so a fresh one.
    expect(nextNonce({ ...state, sent: undefined }, true, version)).toMatch(
      /^2026-.*\/3[0-9a-f-]{36}$/,
    );
  });
});
