import { describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import type { Versioning } from '../../src/snapshot/version.js';
import { validateSets } from '../../src/snapshot/validated-set.js';
import { CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
import { decodeDiscoveryResponse } from '../../src/xds/wire.js';
import { envoyRoot } from '../../src/xds/protos.js';

const clock = () => new Date('2026-08-22T20:00:00.123Z');

function store(resources: readonly unknown[] = makeLabResources(), versioning?: Versioning) {
  const validated = validateSets([{ name: 'default', resources }]);
  if (!validated.ok) throw new Error('invalid');
  return createSnapshotStore(validated.value, { clock, versioning });
}

describe('snapshot store', () => {
  it('versions like istiod: RFC 3339 seconds and a push counter', () => {
    expect(store().current().get(CLUSTER_TYPE).version).toBe('2026-08-22T20:00:00Z/1');
  });

  // Conformance "Pushes: a push re-sends CDS and LDS, unchanged, both at one new version":
  // istiod's version is the push's, shared by every type, changed or not.
  it('gives every type the new push version, and names the types that changed', () => {
    const s = store();
    const before = s.current();
    const lab = makeLabResources();
    const result = s.set([...lab, makeStaticCluster({ name: 'extra', endpoints: [] })]);
    expect(result.ok && result.value.changed).toEqual([CLUSTER_TYPE]);
    expect(s.current().get(LISTENER_TYPE).version).toBe('2026-08-22T20:00:00Z/2');
    expect(s.current().get(CLUSTER_TYPE).version).toBe('2026-08-22T20:00:00Z/2');
    expect(s.current().get(LISTENER_TYPE).resources).toBe(before.get(LISTENER_TYPE).resources);
  });

  it("with versioning 'per-type', bumps only the types whose resources changed", () => {
    const s = store(makeLabResources(), 'per-type');
    const before = s.current();
    const lab = makeLabResources();
    const result = s.set([...lab, makeStaticCluster({ name: 'extra', endpoints: [] })]);
    expect(result.ok && result.value.changed).toEqual([CLUSTER_TYPE]);
    expect(s.current().get(LISTENER_TYPE)).toBe(before.get(LISTENER_TYPE));
    expect(s.current().get(CLUSTER_TYPE).version).not.toBe(before.get(CLUSTER_TYPE).version);
  });

  it('push() restamps every type at a new version and tells the listeners', () => {
    const s = store();
    let calls = 0;
    s.onChange(() => (calls += 1));
    expect(s.push().map((c) => c.changed)).toEqual([[]]);
    expect(calls).toBe(1);
    expect(s.current().version).toBe('2026-08-22T20:00:00Z/2');
    expect(s.current().get(LISTENER_TYPE).version).toBe('2026-08-22T20:00:00Z/2');
    expect(store(makeLabResources(), 'per-type').push()).toEqual([]);
  });

  it('treats an identical set as no change: no new version, no listener call', () => {
    const s = store();
    let calls = 0;
    s.onChange(() => (calls += 1));
    const result = s.set(makeLabResources());
    expect(result.ok && result.value.changed).toEqual([]);
    expect(calls).toBe(0);
  });

  it('reports every problem with its path and keeps the previous snapshot', () => {
    const s = store();
    const before = s.current();
    const result = s.set([
      { '@type': CLUSTER_TYPE, name: 'a', connect_timeout: 5 },
      makeStaticCluster({ name: 'b', endpoints: [] }),
      makeStaticCluster({ name: 'b', endpoints: [] }),
      { '@type': CLUSTER_TYPE },
      { name: 'no-type' },
    ]);
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.problems.map((p) => p.path);
    expect(paths).toEqual([
      'resources[0].connect_timeout',
      'resources[2].name',
      'resources[3].name',
      'resources[4].@type',
    ]);
    expect(s.current()).toBe(before);
  });

  it('encodes a body once per version and serves the same bytes to every caller', () => {
    const snap = store().current().get(CLUSTER_TYPE);
    expect(snap.body()).toBe(snap.body());
    expect(snap.body(['BlackHoleCluster'])).toBe(snap.body(['BlackHoleCluster']));
    expect(snap.count(['BlackHoleCluster', 'missing'])).toBe(1);
  });

  it('answers a type the set does not hold from one empty snapshot, its body encoded once', () => {
    const current = store().current();
    expect(current.has(ROUTE_TYPE)).toBe(false);
    const routes = current.get(ROUTE_TYPE);
    expect(routes.resources.size).toBe(0);
    expect(routes.version).toBe(current.version);
    expect(current.get(ROUTE_TYPE)).toBe(routes);
    expect(current.get(ROUTE_TYPE).body(['80'], true)).toBe(routes.body(['80'], true));
    const response = decodeDiscoveryResponse(routes.body(['80'], true));
    expect(response.type_url).toBe(ROUTE_TYPE);
    expect(response.resources).toHaveLength(1);
  });

  it('keeps the empty snapshots of at most 32 types a client names, and makes the rest afresh', () => {
    const current = store().current();
    const named = Array.from({ length: 40 }, (_, i) => `type.googleapis.com/made.up.T${i}`);
    for (const typeUrl of named) current.get(typeUrl);
    expect(current.get(named[0] as string)).toBe(current.get(named[0] as string));
    expect(current.get(named[31] as string)).toBe(current.get(named[31] as string));
    expect(current.get(named[32] as string)).not.toBe(current.get(named[32] as string));
    expect(current.get(named[39] as string).version).toBe(current.version);
  });
});

describe('a response body for names', () => {
  const routes = () =>
    store(makeLabResources({ discovery: 'eds-rds' }))
      .current()
      .get(ROUTE_TYPE);
  const routeType = () => envoyRoot().lookupType('envoy.config.route.v3.RouteConfiguration');
  const names = (body: Buffer) =>
    decodeDiscoveryResponse(body).resources.map((r) =>
      String(routeType().toObject(routeType().decode(r.value))['name']),
    );

  it('carries an empty resource for each name without one, as istiod does, unless told not to', () => {
    // Conformance: "SotW: names that do not exist: RDS: an unknown name is answered with …".
    const snapshot = routes();
    const known = [...snapshot.resources.keys()];
    const asked = [...known, 'no-such-route'];
    expect(names(snapshot.body(asked, true))).toEqual(asked);
    expect(snapshot.count(asked, true)).toBe(asked.length);
    expect(names(snapshot.body(asked))).toEqual(known);
    expect(snapshot.count(asked)).toBe(known.length);
  });

  it('has no empty resource for a type istiod sends nothing for (CDS)', () => {
    const snapshot = store().current().get(CLUSTER_TYPE);
    expect(snapshot.count(['no-such-cluster'], true)).toBe(0);
    expect(decodeDiscoveryResponse(snapshot.body(['no-such-cluster'], true)).resources).toEqual([]);
  });
});
