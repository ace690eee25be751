/**
 * Pinned versions with a real Envoy, SotW and delta (docs/resources.md, "Pinned versions"):
 * a set names the version each type is served with, on any change, and Envoy ACKs exactly it
 * and reports it in its config_dump. And what Envoy does when a pinned version comes back
 * with other content (docs/envoy-facts.md): it applies the new content, and keeps reporting
 * the same version.
 */
import { describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import type { TestEnvoy } from '../../src/testing/envoy.js';
import { sidecarBootstrap } from '../../src/testing/envoy.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

interface DumpedCluster {
  version_info?: string;
  cluster?: { name?: string; connect_timeout?: string };
}

/** Envoy's CDS as its config_dump has it: the type's version and each cluster's. */
async function dumpedClusters(envoy: TestEnvoy) {
  const dump = (await envoy.configDump()) as {
    configs?: Array<{
      '@type'?: string;
      version_info?: string;
      dynamic_active_clusters?: DumpedCluster[];
    }>;
  };
  const cds = dump.configs?.find((c) => c['@type']?.endsWith('ClustersConfigDump'));
  const clusters = new Map(
    (cds?.dynamic_active_clusters ?? []).map((c) => [c.cluster?.name ?? '', c]),
  );
  return { version: cds?.version_info, clusters };
}

/** The LDS version Envoy reports (the ListenersConfigDump's `version_info`). */
async function dumpedListenersVersion(envoy: TestEnvoy): Promise<string | undefined> {
  const dump = (await envoy.configDump()) as {
    configs?: Array<{ '@type'?: string; version_info?: string }>;
  };
  return dump.configs?.find((c) => c['@type']?.endsWith('ListenersConfigDump'))?.version_info;
}

/**
 * The version a cluster is reported at: in SotW the type's version of the response that last
 * changed it; in delta its own resource version (none, as istiod sends them, unless pinned).
 */
const clusterVersion = (xdsMode: 'sotw' | 'delta', typeVersion: string) =>
  xdsMode === 'sotw' ? typeVersion : undefined;

const extra = (connectTimeout: string) =>
  makeStaticCluster({ name: 'extra', endpoints: [], connectTimeout });

/** The lab plus the cluster `extra`, with this connect timeout. */
const labWith = (connectTimeout: string) => [...makeLabResources(), extra(connectTimeout)];

async function live(
  startMock: Fixtures['startMock'],
  startEnvoy: Fixtures['startEnvoy'],
  xdsMode: 'sotw' | 'delta',
) {
  const mock = await startMock();
  const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(mock, { xdsMode }) });
  await envoy.waitForLive({ timeoutMs: 20_000 });
  return { mock, envoy };
}

describe.each(['sotw', 'delta'] as const)('pinned versions over %s', (xdsMode) => {
  it('set version 2, and Envoy ACKs version_info 2 and reports it', async ({
    startMock,
    startEnvoy,
  }) => {
    const { mock, envoy } = await live(startMock, startEnvoy, xdsMode);
    const startVersion = mock.snapshot().get(LISTENER_TYPE).version;
    const pinned = await mock.control.setResources({
      resources: labWith('1s'),
      versions: { CDS: '2', LDS: '2' },
    });
    expect(mock.snapshot().get(CLUSTER_TYPE).version).toBe('2');
    expect(pinned.changed).toContain('CDS');
    await mock.waitForAck(CLUSTER_TYPE, { version: '2' });
    await mock.waitForAck(LISTENER_TYPE, { version: '2' });
    await waitFor(async () => (await dumpedClusters(envoy)).clusters.has('extra'), {
      description: 'the cluster extra in the config_dump',
    });
    const { version, clusters } = await dumpedClusters(envoy);
    expect(version).toBe('2');
    expect(clusters.get('extra')?.version_info).toBe(clusterVersion(xdsMode, '2'));
    // An unchanged cluster keeps the version of the response that last changed it (SotW).
    const unchanged = clusters.get('BlackHoleCluster')?.version_info;
    expect(unchanged).toBe(clusterVersion(xdsMode, startVersion));
    // Envoy ACKed LDS 2, but no listener changed: its config_dump keeps the LDS version of
    // the last response that changed one (docs/envoy-facts.md).
    expect(await dumpedListenersVersion(envoy)).toBe(startVersion);

    // The next change names 3; a type it does not name gets istiod's push version.
    await mock.control.setResources({ resources: labWith('2s'), versions: { CDS: '3' } });
    const lds = mock.snapshot().get(LISTENER_TYPE).version;
    expect(lds).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/\d+$/);
    await mock.waitForAck(CLUSTER_TYPE, { version: '3' });
    await mock.waitForAck(LISTENER_TYPE, { version: lds });
    await waitFor(async () => (await dumpedClusters(envoy)).version === '3', {
      description: 'CDS version 3 in the config_dump',
    });
    expect((await dumpedClusters(envoy)).clusters.get('extra')?.cluster?.connect_timeout).toBe(
      '2s',
    );
  });

  it('a pinned version sent again with new content: Envoy applies it, same version', async ({
    startMock,
    startEnvoy,
  }) => {
    const { mock, envoy } = await live(startMock, startEnvoy, xdsMode);
    const versions = { CDS: '7' };
    await mock.control.setResources({ resources: labWith('1s'), versions });
    await mock.waitForAck(CLUSTER_TYPE, { version: '7' });
    await waitFor(async () => (await dumpedClusters(envoy)).clusters.has('extra'), {
      description: 'the cluster extra in the config_dump',
    });
    const acksBefore = ackCount(mock, CLUSTER_TYPE);
    const again = await mock.control.setResources({ resources: labWith('4s'), versions });
    expect(again.warnings?.map((w) => w.path)).toEqual(['versions.CDS']);
    await waitFor(
      async () =>
        (await dumpedClusters(envoy)).clusters.get('extra')?.cluster?.connect_timeout === '4s',
      { description: 'the new content of extra in the config_dump' },
    );
    const { version, clusters } = await dumpedClusters(envoy);
    expect([version, clusters.get('extra')?.version_info]).toEqual([
      '7',
      clusterVersion(xdsMode, '7'),
    ]);
    await waitFor(() => ackCount(mock, CLUSTER_TYPE) > acksBefore, {
      description: 'an ACK of the repeated version',
    });
    expect(mock.streams()[0]?.types.get(CLUSTER_TYPE)?.acked?.version).toBe('7');
  });
});

describe('pinned resource versions over delta', () => {
  it('Envoy reports the pinned version of each resource, and applies new content under it', async ({
    startMock,
    startEnvoy,
  }) => {
    const { mock, envoy } = await live(startMock, startEnvoy, 'delta');
    const pins = { versions: { CDS: '5' }, resourceVersions: { CDS: { extra: 'extra-1' } } };
    await mock.control.setResources({ resources: labWith('1s'), ...pins });
    await mock.waitForAck(CLUSTER_TYPE, { version: '5' });
    await waitFor(async () => (await dumpedClusters(envoy)).clusters.has('extra'), {
      description: 'the cluster extra in the config_dump',
    });
    const first = await dumpedClusters(envoy);
    expect(first.clusters.get('extra')?.version_info).toBe('extra-1');
    // Resources the set does not pin are sent unversioned, as istiod sends them.
    expect(first.clusters.get('BlackHoleCluster')?.version_info ?? '').toBe('');

    // The same system version and the same resource version, with other content.
    const acksBefore = ackCount(mock, CLUSTER_TYPE);
    const again = await mock.control.setResources({ resources: labWith('3s'), ...pins });
    expect(again.warnings?.map((w) => w.path)).toEqual([
      'versions.CDS',
      'resourceVersions.CDS.extra',
    ]);
    await waitFor(
      async () =>
        (await dumpedClusters(envoy)).clusters.get('extra')?.cluster?.connect_timeout === '3s',
      { description: 'the new content of extra in the config_dump' },
    );
    const after = await dumpedClusters(envoy);
    expect([after.version, after.clusters.get('extra')?.version_info]).toEqual(['5', 'extra-1']);
    await waitFor(() => ackCount(mock, CLUSTER_TYPE) > acksBefore, {
      description: 'an ACK of the repeated version',
    });
  });
});

function ackCount(mock: TestMockIstiod, typeUrl: string): number {
  return mock.journal.query({ kind: 'ack', typeUrl }).length;
}
