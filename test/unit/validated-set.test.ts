import { describe, expect, it } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { validateSet, validateSets, type ValidatedSet } from '../../src/snapshot/validated-set.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

function validated(resources: readonly unknown[] = makeLabResources()): ValidatedSet {
  const set = validateSet({ name: 'default', resources });
  if (!set.ok) throw new Error('the lab should be valid');
  return set.value;
}

describe('validated sets', () => {
  it('are packed once: the store serves the very resources validation packed', () => {
    const set = validated();
    const store = createSnapshotStore([set]);
    const served = store.current().get(CLUSTER_TYPE).resources.get('BlackHoleCluster');
    expect(served).toBe(set.packed.get(CLUSTER_TYPE)?.get('BlackHoleCluster'));
  });

  it('install replaces every set; installDefault only the default one', () => {
    const store = createSnapshotStore([validated()]);
    const east = validated([makeStaticCluster({ name: 'east', endpoints: [] })]);
    store.install([{ ...east, name: 'east', match: { nodeId: 'east~*' } }, validated()]);
    expect(store.sets().map((s) => s.name)).toEqual(['east', 'default']);
    const change = store.installDefault(east.packed);
    expect(change).toMatchObject({ set: 'default', changed: [CLUSTER_TYPE, LISTENER_TYPE] });
    expect(store.sets().map((s) => s.name)).toEqual(['east', 'default']);
    store.install([validated()]);
    expect(store.sets().map((s) => s.name)).toEqual(['default']);
  });

  it('check every set given as JSON: its shape, selector, name and resources, with paths', () => {
    const result = validateSets([
      { name: 'a', match: { zone: 'x' }, resources: [] },
      { match: { nodeId: 'b~*' }, resources: [] },
      { name: 'c', resources: 'none' },
      { name: 'c', resources: [] },
      'd',
    ]);
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: 'sets[0].match.zone',
        message: 'unknown selector field; use nodeId, cluster or metadata',
      },
      { path: 'sets[1].name', message: 'expected a non-empty set name' },
      { path: 'sets[2] (c).resources', message: 'expected a list of resources' },
      { path: 'sets[3].name', message: 'duplicate set "c"' },
      { path: 'sets[4]', message: 'expected a set: { name, match, resources }' },
    ]);
    expect(validateSets([])).toEqual({
      ok: false,
      problems: [{ path: 'sets', message: 'expected at least one resource set' }],
    });
  });

  it('that Envoy will NACK or warm on are accepted by set() and setSets(), reported as warnings with paths', () => {
    const store = createSnapshotStore([validated()]);
    const noBlackHole = makeLabResources().filter((r) => r.name !== 'BlackHoleCluster');
    const route =
      'filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route';
    const result = store.set(noBlackHole);
    expect(result.ok && result.warnings).toEqual([
      {
        path: `resources[2].${route}.cluster`,
        message:
          "unknown cluster 'BlackHoleCluster': Envoy rejects this (NACK) whenever it is sent",
      },
    ]);
    expect(store.current().get(LISTENER_TYPE).resources.has('virtualOutbound')).toBe(true);

    const eds = makeLabResources({ discovery: 'eds-rds' }).filter(
      (r) => !r['@type'].endsWith('ClusterLoadAssignment'),
    );
    const sets = store.setSets([
      { name: 'east', match: { nodeId: 'east~*' }, resources: noBlackHole },
      { name: 'default', resources: eds },
    ]);
    expect(sets.ok && sets.warnings.map((w) => w.path)).toEqual([
      `sets[0] (east).resources[2].${route}.cluster`,
      'sets[1] (default).resources[1]',
    ]);
  });
});
