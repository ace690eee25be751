/**
 * Runs once before the cluster project: starts the single-node cluster of scripts/cluster.sh
 * (unless one already runs: then it is used and left running), builds the images its pods run
 * (the mock's, `npm run image`; the pause, lab-app and istio-proxy images,
 * scripts/build-cluster-images.sh) and imports them into the cluster's containerd. Stops the
 * cluster at the end if it started it. A missing part fails the run, naming how to install it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CLUSTER_DIR, REPO, missingPrerequisite, run } from './support/kube.js';

const CLUSTER_SH = join(REPO, 'scripts/cluster.sh');

async function must(what: string, command: string, args: string[], timeoutMs: number) {
  const result = await run(command, args, { timeoutMs });
  if (result.code !== 0) {
    throw new Error(
      `cluster tests: ${what} failed (exit ${result.code}):\n${(result.stderr || result.stdout).trim().split('\n').slice(-25).join('\n')}`,
    );
  }
  return result.stdout;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const missing = missingPrerequisite();
  if (missing !== undefined) throw new Error(missing);
  const before = await run('bash', [CLUSTER_SH, 'status'], { timeoutMs: 30_000 });
  const startedHere = before.code !== 0;
  if (startedHere) {
    // A half-started cluster from an interrupted run goes first.
    await run('bash', [CLUSTER_SH, 'stop'], { timeoutMs: 120_000 });
    await must('scripts/cluster.sh start', 'bash', [CLUSTER_SH, 'start'], 300_000);
  }
  try {
    project.provide('clusterImages', await buildAndImportImages());
  } catch (err) {
    if (startedHere) await run('bash', [CLUSTER_SH, 'stop'], { timeoutMs: 180_000 });
    throw err;
  }
  return async () => {
    if (startedHere) await run('bash', [CLUSTER_SH, 'stop'], { timeoutMs: 180_000 });
  };
}

/** The mock's image and the cluster images, built (cached) and imported into containerd. */
async function buildAndImportImages(): Promise<{
  mock: string;
  labApp: string;
  istioProxy: string;
  istiodRef: string;
}> {
  const images = join(CLUSTER_DIR, 'images');
  mkdirSync(images, { recursive: true });
  const mockImage = (
    await must(
      'building the mock image (scripts/build-image.sh)',
      'bash',
      [join(REPO, 'scripts/build-image.sh'), '--quiet'],
      900_000,
    )
  )
    .trim()
    .split('\n')
    .pop();
  if (mockImage === undefined || mockImage === '')
    throw new Error('cluster tests: scripts/build-image.sh printed no image name');
  const mockArchive = join(images, 'mock-istiod.tar');
  rmSync(mockArchive, { force: true }); // podman save does not overwrite an archive
  await must(
    'podman save of the mock image',
    'podman',
    ['save', '--format', 'docker-archive', '-o', mockArchive, mockImage],
    300_000,
  );
  await must('importing the mock image', 'bash', [CLUSTER_SH, 'import', mockArchive], 300_000);
  const clusterArchive = join(images, 'cluster-images.tar');
  const tags = await must(
    'building the cluster images (scripts/build-cluster-images.sh)',
    'bash',
    [join(REPO, 'scripts/build-cluster-images.sh'), '--save', clusterArchive],
    900_000,
  );
  await must(
    'importing the cluster images',
    'bash',
    [CLUSTER_SH, 'import', clusterArchive],
    300_000,
  );
  return { mock: mockImage, ...parseTags(tags) };
}

/** `pause=… lab-app=… istio-proxy=…` from the image script's last line. */
function parseTags(out: string): { labApp: string; istioProxy: string; istiodRef: string } {
  const last = out.trim().split('\n').pop() ?? '';
  const pairs = new Map(last.split(/\s+/).map((kv) => kv.split('=', 2) as [string, string]));
  const labApp = pairs.get('lab-app');
  const istioProxy = pairs.get('istio-proxy');
  const istiodRef = pairs.get('istiod-ref');
  if (labApp === undefined || istioProxy === undefined || istiodRef === undefined) {
    throw new Error(
      `cluster tests: scripts/build-cluster-images.sh's last line names no lab-app, istio-proxy and istiod-ref images: ${last}`,
    );
  }
  return { labApp, istioProxy, istiodRef };
}

declare module 'vitest' {
  export interface ProvidedContext {
    clusterImages: { mock: string; labApp: string; istioProxy: string; istiodRef: string };
  }
}
