/**
 * The cluster's images under test (scripts/build-cluster-images.sh, docs/cluster-images.md):
 * the binaries they are built from (a missing one fails naming the script that makes it) and
 * the script's run, parsed into the image names it prints.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findEnvoy } from '../../../src/envoy/find-envoy.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { requireIstio } from './real-agent.js';

const run = promisify(execFile);

export interface ClusterImages {
  pause: string;
  'lab-app': string;
  'istio-proxy': string;
}

/** Throws, naming the install script, unless pause, pilot-agent and Envoy are there. */
export function requireClusterImageInputs(): void {
  const kubeBin = process.env['KUBE_BIN_DIR'] || join(packageRoot(), '.kube', 'bin');
  if (!existsSync(join(kubeBin, 'pause'))) {
    throw new Error(
      `the cluster images need ${join(kubeBin, 'pause')}: build it with ` +
        'scripts/install-kubernetes.sh (or set KUBE_BIN_DIR)',
    );
  }
  requireIstio();
  findEnvoy();
}

export interface BuildRun {
  images: ClusterImages;
  /** The proxy image's second name (`…/proxyv2:<same tag>`). */
  proxyAlias: string;
  stderr: string;
  ms: number;
}

/** Runs the script (`--save <archive>` when given) and parses its last line. */
export async function buildClusterImages(save?: string): Promise<BuildRun> {
  const started = performance.now();
  const args = [join(packageRoot(), 'scripts', 'build-cluster-images.sh')];
  if (save) args.push('--save', save);
  const { stdout, stderr } = await run('bash', args, {
    cwd: packageRoot(),
    timeout: 900_000,
    maxBuffer: 64 << 20,
  }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`scripts/build-cluster-images.sh failed: ${err.stderr || err.message}`);
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const images = Object.fromEntries(
    line.split(' ').map((pair) => pair.split('=') as [string, string]),
  ) as unknown as ClusterImages;
  for (const name of ['pause', 'lab-app', 'istio-proxy'] as const) {
    if (!images[name]) throw new Error(`no ${name}=… in the script's last line: '${line}'`);
  }
  const proxyAlias = images['istio-proxy'].replace('/istio-proxy:', '/proxyv2:');
  return { images, proxyAlias, stderr, ms: performance.now() - started };
}
