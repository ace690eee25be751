/**
 * Resource files with a real Envoy: a bad edit is refused with the exact error while Envoy
 * keeps its config; a good edit is pushed, ACKed and moves traffic.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { get, useLab } from '../support/harness/lab.js';

const labs = useLab();
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('a bad reload keeps the old config and reports the exact error; a good one is pushed and ACKed', async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-e2e-files-'));
  const file = join(dir, 'lab.json');
  // The lab picks free ports; write its resources to the file once they are known.
  const lab = await labs.start(
    {},
    { transform: (resources) => (writeFileSync(file, JSON.stringify(resources)), resources) },
  );
  await lab.istiod.close();
  const istiod = await lab.restartIstiod({ resourcesPath: file });
  const { envoy, ports } = lab;
  await envoy.waitForLive({ timeoutMs: 20_000 });
  await istiod.waitForAck(CLUSTER_TYPE);
  const before = await envoy.stat('cluster_manager.cds.version_text');

  const bad = makeLabResources(ports).filter((r) => r.name !== `inbound|${ports.appPort}||`);
  writeFileSync(file, JSON.stringify(bad));
  const status = await waitFor(async () => (await istiod.control.resourceStatus()).lastError, {
    description: 'the bad reload to be reported',
  });
  expect(status.problems).toEqual([
    {
      path: `${file}: [1].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route.cluster`,
      message: `unknown cluster 'inbound|${ports.appPort}||'`,
    },
  ]);
  expect(await envoy.stat('cluster_manager.cds.version_text')).toBe(before);
  expect(await get(lab.inboundUrl('/orders'))).toMatchObject({ status: 200 });

  const second = await startLabUpstream({ mode: 'ok', port: 0 });
  try {
    writeFileSync(file, JSON.stringify(makeLabResources({ ...ports, appPort: second.port })));
    await waitFor(async () => (await istiod.control.resourceStatus()).lastError === undefined, {
      description: 'a good reload',
    });
    await istiod.waitForAck(CLUSTER_TYPE);
    await waitFor(async () => (await envoy.stat('cluster_manager.cds.version_text')) !== before);
    await waitFor(
      async () => {
        const res = await get(lab.inboundUrl('/orders'));
        return 'body' in res && res.body === `ok:${second.port} /orders`;
      },
      { description: 'traffic to follow the reloaded file' },
    );
  } finally {
    await second.close();
  }
});
