/**
 * The store's pinned versions (docs/resources.md, "Pinned versions"), in both versioning
 * schemes: what a pin changes, what it keeps, and what it reports.
 */
import { describe, expect, it } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { validateSet } from '../../src/snapshot/validated-set.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

const labWith = (connectTimeout: string) => [
  ...makeLabResources(),
  makeStaticCluster({ name: 'extra', endpoints: [], connectTimeout }),
];

function storeOf(versioning: 'push' | 'per-type') {
  const set = validateSet({ name: 'default', resources: labWith('1s') });
  if (!set.ok) throw new Error('the lab should be valid');
  return createSnapshotStore([set.value], { versioning });
}

describe.each(['push', 'per-type'] as const)("pins with versioning '%s'", (versioning) => {
  it('a pin alone (same resources) is a change of that type', () => {
    const store = storeOf(versioning);
    const result = store.set(labWith('1s'), { versions: { CDS: '2' } });
    expect(result.ok && result.value.changed).toEqual([CLUSTER_TYPE]);
    expect(store.current().get(CLUSTER_TYPE).version).toBe('2');
    // The same pin and resources again: no change at all.
    const again = store.set(labWith('1s'), { versions: { CDS: '2' } });
    expect(again.ok && again.value.changed).toEqual([]);
  });

  it('a repeated pin with other content is reported, not refused', () => {
    const store = storeOf(versioning);
    store.set(labWith('1s'), { versions: { CDS: '2' } });
    const before = store.current().get(CLUSTER_TYPE).resources.get('extra')?.value;
    const result = store.set(labWith('3s'), { versions: { CDS: '2' } });
    expect(result.ok && result.warnings.map((w) => w.path)).toEqual(['versions.CDS']);
    expect(result.ok && result.value.repeated).toEqual([{ typeUrl: CLUSTER_TYPE, version: '2' }]);
    // Served: the new bytes, under the same version.
    const served = store.current().get(CLUSTER_TYPE);
    expect(served.version).toBe('2');
    expect(served.resources.get('extra')?.value).not.toEqual(before);
  });

  it('resourceVersions is each pinned resource’s wire version', () => {
    const store = storeOf(versioning);
    store.set(labWith('1s'), { resourceVersions: { CDS: { extra: 'e1' } } });
    const clusters = store.current().get(CLUSTER_TYPE).resources;
    expect(clusters.get('extra')?.wireVersion).toBe('e1');
    expect(clusters.get('BlackHoleCluster')?.wireVersion).toBeUndefined();
  });
});

describe('a pin dropped', () => {
  it("'push': the type gets the push version again", () => {
    const store = storeOf('push');
    store.set(labWith('1s'), { versions: { CDS: '2' } });
    const result = store.set(labWith('1s'));
    expect(result.ok && result.value.changed).toEqual([CLUSTER_TYPE]);
    const { version } = store.current().get(CLUSTER_TYPE);
    expect(version).not.toBe('2');
    expect(version).toBe(store.current().get(LISTENER_TYPE).version);
  });

  it("'per-type': the type keeps its version until its resources change", () => {
    const store = storeOf('per-type');
    store.set(labWith('1s'), { versions: { CDS: '2' } });
    expect(store.set(labWith('1s')).ok).toBe(true);
    expect(store.current().get(CLUSTER_TYPE).version).toBe('2');
    expect(store.set(labWith('4s')).ok).toBe(true);
    expect(store.current().get(CLUSTER_TYPE).version).not.toBe('2');
  });
});

describe('push()', () => {
  it('restamps every type but the pinned ones', () => {
    const store = storeOf('push');
    store.set(labWith('1s'), { versions: { LDS: 'l' } });
    const cds = store.current().get(CLUSTER_TYPE).version;
    store.push();
    expect(store.current().get(LISTENER_TYPE).version).toBe('l');
    expect(store.current().get(CLUSTER_TYPE).version).not.toBe(cds);
  });
});
