/**
 * Resource files changing under the watcher while proxies stream (test/support/harness/file-churn.ts):
 * no proxy is ever sent a half-written set, each change is served or refused and reported,
 * and the last good set keeps serving meanwhile. scripts/reliability.ts runs it bigger.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { clustersYaml, FileChurn, slowWriter } from '../support/harness/file-churn.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { seededRandom } from '../support/fixtures/raw-ads.js';
import { it } from '../support/fixtures/test.js';

const SEED = Number(process.env.MOCK_ISTIOD_FILES_SEED ?? 20261201);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it.for(['file', 'dir'] as const)(
  'a resource %s changing under the watcher: only complete sets are served',
  { timeout: 90_000 },
  async (mode, { startMock }) => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-file-churn-'));
    const churn = new FileChurn({
      mode,
      dir,
      steps: 12,
      proxies: 5,
      clusters: 8,
      random: seededRandom(SEED),
    });
    churn.prepare();
    const server = await startMock({ resourcesPath: churn.path });
    const report = await churn.run(server);
    // A step whose writer paused past the quiet period (this process stalled by a loaded
    // machine) may be served what it wrote so far: the documented limit, in `excused`.
    expect(report.halfServed).toEqual([]);
    expect(report.responses).toBeGreaterThan(12);
    if (mode === 'file')
      // Each truncation and deletion is refused; a loaded machine may also catch a file
      // emptied by a rewrite in place before its first piece (refused too, never served).
      expect(report.refused).toBeGreaterThanOrEqual(
        (report.steps.truncate ?? 0) + (report.steps.delete ?? 0),
      );
  },
);

it('a file mounted from a Kubernetes ConfigMap (a symlink whose ..data link is swapped) is reloaded', async ({
  startMock,
}) => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-configmap-'));
  // The kubelet's layout: resources.yaml -> ..data/resources.yaml, ..data -> ..<timestamp>.
  const version = (n: number) => {
    mkdirSync(join(dir!, `..v${n}`));
    writeFileSync(join(dir!, `..v${n}`, 'resources.yaml'), clustersYaml([`configmap-${n}`]));
  };
  version(1);
  symlinkSync('..v1', join(dir, '..data'));
  symlinkSync('..data/resources.yaml', join(dir, 'resources.yaml'));
  const server = await startMock({ resourcesPath: join(dir, 'resources.yaml') });
  expect([...server.snapshot().get(CLUSTER_TYPE).resources.keys()]).toEqual(['configmap-1']);

  version(2);
  symlinkSync('..v2', join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  await waitFor(() => server.snapshot().get(CLUSTER_TYPE).resources.has('configmap-2'), {
    description: 'the swapped ConfigMap to be served',
  });
});

it(
  'a writer that pauses mid-file is not served half-written when the quiet period outlasts its pauses',
  {
    timeout: 60_000,
  },
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'mock-istiod-slow-writer-'));
    const report = await slowWriter({
      dir,
      rounds: 3,
      gapMs: 250,
      quietMs: 1000,
      random: seededRandom(SEED),
    });
    expect(report.served).toBe(0);
  },
);

it('a watched directory deleted and created again is watched again', async ({ startMock }) => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-dir-again-'));
  const resources = join(dir, 'resources');
  mkdirSync(resources);
  writeFileSync(join(resources, 'a.yaml'), clustersYaml(['first']));
  const server = await startMock({ resourcesPath: resources });
  rmSync(resources, { recursive: true });
  await waitFor(async () => (await server.control.resourceStatus()).lastError, {
    description: 'the missing directory to be reported',
  });
  expect([...server.snapshot().get(CLUSTER_TYPE).resources.keys()]).toEqual(['first']);

  mkdirSync(resources);
  writeFileSync(join(resources, 'a.yaml'), clustersYaml(['second']));
  await waitFor(() => server.snapshot().get(CLUSTER_TYPE).resources.has('second'), {
    description: 'the recreated directory to be served',
  });
  writeFileSync(join(resources, 'a.yaml'), clustersYaml(['third']));
  await waitFor(() => server.snapshot().get(CLUSTER_TYPE).resources.has('third'), {
    description: 'a later change in the recreated directory to be served',
  });
});
