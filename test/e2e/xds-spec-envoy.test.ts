/**
 * A real Envoy against the mock in the `xds-spec` profile, over SotW and delta, with the lab
 * on EDS and RDS: it goes live and carries the lab's traffic, and a changed EDS cluster
 * finishes warming. Envoy asks for CDS and LDS by wildcard, so the profile's name rules do not
 * change what it is sent; what does is that a type is versioned on its own, so a CDS change
 * sends no other type: the profile then answers the next EDS request (SotW) or sends the
 * changed clusters' endpoints (delta), as "Resource warming" expects of the server.
 */
import { describe, expect, it } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';
import { expectLabTraffic, useLab } from '../support/harness/lab.js';

const labs = useLab();

describe.each(['sotw', 'delta'] as const)('Envoy over %s, profile xds-spec', (xdsMode) => {
  it('goes live on the lab, and a changed EDS cluster leaves warming', async () => {
    const lab = await labs.start({ profile: 'xds-spec' }, { xdsMode, discovery: 'eds-rds' });
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(ENDPOINT_TYPE);
    await istiod.waitForAck(ROUTE_TYPE);
    await expectLabTraffic(lab);
    const versionOf = (type: string) => istiod.snapshot().get(type).version;
    const [cds, eds] = [versionOf(CLUSTER_TYPE), versionOf(ENDPOINT_TYPE)];

    // The inbound EDS cluster with another connect timeout: a CDS change only.
    const inbound = `inbound|${ports.appPort}||`;
    const resources = makeLabResources({ ...ports, discovery: 'eds-rds' }).map((r) =>
      r['@type'] === CLUSTER_TYPE && r.name === inbound ? { ...r, connect_timeout: '7s' } : r,
    );
    const before = (await envoy.stat('cluster_manager.cds.update_success')) ?? 0;
    const result = await istiod.control.setResources({ resources });
    expect(result.changed).toEqual(['CDS']);
    // Only CDS moved to a new version: the others keep theirs.
    expect(versionOf(CLUSTER_TYPE)).not.toBe(cds);
    expect(versionOf(ENDPOINT_TYPE)).toBe(eds);
    await waitFor(
      async () =>
        ((await envoy.stat('cluster_manager.cds.update_success')) ?? 0) > before &&
        (await envoy.stat('cluster_manager.warming_clusters')) === 0,
      { description: 'Envoy to take the changed cluster and finish warming it', timeoutMs: 20_000 },
    );
    await expectLabTraffic(lab);
  });
});
