/**
 * The cluster's images under test (scripts/build-cluster-images.sh, docs/cluster-images.md):
 * the binaries they are built from (a missing one fails naming the script that makes it), the
 * script's run, parsed into the image names it prints, and the sidecar container as the
 * injection template runs it.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findEnvoy } from '../../../src/envoy/find-envoy.js';
import {
  makeProxyConfig,
  pilotAgentEnv,
  type PilotAgentPorts,
} from '../../../src/envoy/pilot-agent-tree.js';
import { packageRoot } from '../../../src/util/package-root.js';
import { POD_ENV, requireIstio } from './real-agent.js';

const run = promisify(execFile);

export interface ClusterImages {
  pause: string;
  'lab-app': string;
  'istio-proxy': string;
  'istiod-ref': string;
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
  for (const name of ['pause', 'lab-app', 'istio-proxy', 'istiod-ref'] as const) {
    if (!images[name]) throw new Error(`no ${name}=… in the script's last line: '${line}'`);
  }
  const proxyAlias = images['istio-proxy'].replace('/istio-proxy:', '/proxyv2:');
  return { images, proxyAlias, stderr, ms: performance.now() - started };
}

/** The injection template's emptyDir mounts of the istio-proxy container. */
const SIDECAR_EMPTY_DIRS = [
  '/etc/istio/proxy',
  '/var/lib/istio/data',
  '/var/run/secrets/workload-spiffe-uds',
  '/var/run/secrets/credential-uds',
  '/var/run/secrets/workload-spiffe-credentials',
];

export interface SidecarContainerInput {
  /** Where the volumes' host directories go. */
  dir: string;
  discoveryAddress: string;
  rootCert: string;
  token: string;
  ports: PilotAgentPorts;
}

/**
 * The `podman run` arguments (before the image) and the command (after it) that run the proxy
 * image's sidecar as kube-inject's template does: uid 1337, a read-only root, the root
 * certificate and the token mounted read-only, emptyDirs as the kubelet makes them (host
 * directories anyone may write to), the pod's variables, and `proxy sidecar`. On the host's
 * network (the mock listens on its loopback), with the four ports moved off a real sidecar's.
 */
export function sidecarContainerArgs(input: SidecarContainerInput) {
  const volume = (name: string) => join(input.dir, 'volumes', name);
  mkdirSync(volume('istio'), { recursive: true });
  mkdirSync(volume('tokens'), { recursive: true });
  writeFileSync(join(volume('istio'), 'root-cert.pem'), input.rootCert);
  writeFileSync(join(volume('tokens'), 'istio-token'), `${input.token}\n`, { mode: 0o644 });
  for (const dir of SIDECAR_EMPTY_DIRS) {
    mkdirSync(volume(dir), { recursive: true });
    chmodSync(volume(dir), 0o777);
  }
  const proxyConfig = makeProxyConfig({
    discoveryAddress: input.discoveryAddress,
    envoyBin: '/usr/local/bin/envoy',
    ports: input.ports,
    concurrency: 1,
    overrides: {},
  });
  const env = { ...POD_ENV, ...pilotAgentEnv(proxyConfig, input.ports, 'delta') };
  return {
    options: [
      '--network=host',
      '--read-only',
      ...['--user', '1337:1337'],
      ...['-v', `${volume('istio')}:/var/run/secrets/istio:ro`],
      ...['-v', `${volume('tokens')}:/var/run/secrets/tokens:ro`],
      ...SIDECAR_EMPTY_DIRS.flatMap((dir) => ['-v', `${volume(dir)}:${dir}`]),
      ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ],
    command: [
      ...['proxy', 'sidecar', '--domain', `${POD_ENV.POD_NAMESPACE}.svc.cluster.local`],
      '--proxyLogLevel=warning',
      '--log_output_level=default:info',
    ],
  };
}
