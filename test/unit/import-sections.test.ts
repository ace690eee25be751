/**
 * The sections of a config_dump the import reads beyond the common ones: scoped routes, ECDS,
 * warming clusters, and sections it does not know.
 */
import { describe, expect, it } from 'vitest';
import { dumpConfigs, readDumpSections } from '../../src/import/dump-sections.js';
import { importConfigDump } from '../../src/import/import-dump.js';

const ADMIN = 'type.googleapis.com/envoy.admin.v3.';
const CLUSTER = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const cluster = (name: string, timeout = '1s') => ({
  '@type': CLUSTER,
  name,
  type: 'STATIC',
  connect_timeout: timeout,
});

const DUMP = {
  configs: [
    {
      '@type': `${ADMIN}ClustersConfigDump`,
      version_info: 'v9',
      dynamic_active_clusters: [{ version_info: 'v9', cluster: cluster('a') }],
      dynamic_warming_clusters: [
        { version_info: 'v10', cluster: cluster('a', '2s') },
        { version_info: 'v10', cluster: cluster('b') },
      ],
    },
    {
      '@type': `${ADMIN}ScopedRoutesConfigDump`,
      dynamic_scoped_route_configs: [
        {
          name: 'scopes',
          version_info: 's1',
          last_updated: '2026-11-30T10:00:00Z',
          scoped_route_configs: [
            {
              '@type': 'type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration',
              name: 'tenant-a',
              route_configuration_name: 'routes-a',
              key: { fragments: [{ string_key: 'a' }] },
            },
          ],
        },
      ],
    },
    {
      '@type': `${ADMIN}EcdsConfigDump`,
      ecds_filters: [
        {
          version_info: 'e1',
          last_updated: '2026-11-30T10:00:00Z',
          ecds_filter: {
            '@type': 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
            name: 'fault',
            typed_config: {
              '@type': 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault',
            },
          },
        },
      ],
    },
    { '@type': `${ADMIN}SomethingNewConfigDump` },
    { no_type: true },
  ],
};

describe('config_dump sections', () => {
  it('serves scopes, ECDS filters and warming clusters with no active version', () => {
    const imported = importConfigDump(DUMP, { keepVersions: true });
    if (!imported.ok) throw new Error(JSON.stringify(imported.problems));
    const { report } = imported.value;
    expect(report.counts).toEqual({ CDS: 2, SRDS: 1, ECDS: 1 });
    expect(report.versions).toEqual({ CDS: 'v9', SRDS: 's1', ECDS: 'e1' });
    expect(report.inFlight).toEqual([
      {
        path: 'configs[0].dynamic_warming_clusters[0].cluster',
        message: 'cluster a: a newer version was warming; the active one is served',
      },
      {
        path: 'configs[0].dynamic_warming_clusters[1].cluster',
        message: 'cluster b was warming (no active version): the warming one is served',
      },
    ]);
    expect(report.notImported).toEqual([
      { path: 'configs[3]', message: `section ${ADMIN}SomethingNewConfigDump: not a known one` },
      { path: 'configs[4]', message: 'section (no @type): not a known one' },
    ]);
    expect(report.cannotWork).toEqual([
      {
        path: 'configs[1].dynamic_scoped_route_configs[0].scoped_route_configs[0].route_configuration_name',
        message:
          'no route configuration "routes-a" in the set: no routes (over SotW it is sent an empty one, as istiod does; over delta or with omitMissingResources the scope warms until one is served)',
      },
    ]);
  });

  it('reads { configs } and a bare list alike, and nothing else', () => {
    expect(dumpConfigs(DUMP)).toHaveLength(5);
    expect(dumpConfigs(DUMP.configs)).toHaveLength(5);
    expect(dumpConfigs({ clusters: [] })).toBeUndefined();
    expect(readDumpSections([]).resources).toEqual([]);
  });
});
