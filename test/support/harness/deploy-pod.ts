/**
 * deploy/'s Deployment started as a kubelet would start it, minus the cluster: the container's
 * args and environment, unchanged but for addresses (loopback, free ports) and mount paths;
 * its Secret made by `mock-istiod certs`; its volumes laid out as the kubelet lays them out
 * (files in `..<version>`, `..data` a symlink to it, each key a symlink through `..data`, an
 * update swapping `..data` in one rename).
 */
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { useCli } from '../fixtures/cli.js';
import { manifest, readManifests, type Manifest } from './deploy-manifests.js';

const all = readManifests();
export const deployment = manifest<IDeployment & Manifest>(all, 'Deployment', 'mock-istiod');
const pod = deployment.spec!.template.spec!;
export const container = pod.containers[0]!;
const configData = manifest<Manifest & { data: Record<string, string> }>(
  all,
  'ConfigMap',
  'mock-istiod-config',
).data;

/** The name the Deployment's certificate is made for (its `--tls-host`). */
export const SERVICE_HOST = 'mock-istiod.istio-system.svc';

/** A volume as the kubelet writes it, or updates it when it exists. */
export function writeVolume(
  dir: string,
  files: Record<string, string>,
  version: string,
  mode = 0o444,
): void {
  mkdirSync(join(dir, version), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, version, name), text);
    chmodSync(join(dir, version, name), mode);
  }
  symlinkSync(version, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(join('..data', name), join(dir, name));
    } catch {
      // linked by an earlier version already
    }
  }
}

/** The files of a ConfigMap volume: its items, by path. */
function configItems(volume: string): Record<string, string> {
  const items = pod.volumes!.find((v) => v.name === volume)!.configMap!.items!;
  return Object.fromEntries(items.map((i) => [i.path, configData[i.key]!]));
}

export interface PodLayout {
  /** `serve …` as the container runs it, paths moved under the layout's directory. */
  args: string[];
  /** The container's environment, hosts on loopback and ports 0. */
  env: Record<string, string>;
  /** The Secret's files (`root-cert.pem` …). */
  secret: Record<string, string>;
  /** Where each volume is, by name. */
  volumes: Record<string, string>;
}

export interface PodLayoutOptions {
  /** The control API's token (the Secret mock-istiod-control). */
  token: string;
  /** Files for the `resources` volume instead of the ConfigMap's. */
  resources?: Record<string, string>;
  /**
   * The kubeconfig of the API server the pod's `--token-review=in-cluster` would ask (a
   * stand-in, test/support/fixtures/kube-api.ts). None: `--token-review=off`, tokens checked
   * against the mock's own key.
   */
  tokenReview?: string;
}

/** Makes the Secret with `mock-istiod certs`, writes the volumes, and returns the command. */
export async function layOutPod(
  root: string,
  cli: ReturnType<typeof useCli>,
  options: PodLayoutOptions,
): Promise<PodLayout> {
  const made = join(root, 'certs');
  const certs = await cli.run(['certs', '--tls-dir', made, '--tls-host', SERVICE_HOST]);
  if (certs.code !== 0) throw new Error(`mock-istiod certs failed: ${certs.stderr}`);
  const secret = Object.fromEntries(
    readdirSync(made).map((name) => [name, readFileSync(join(made, name), 'utf8')]),
  );
  const volumes = Object.fromEntries(pod.volumes!.map((v) => [v.name, join(root, v.name)]));
  const first = '..2026_01_01_00_00_00.1';
  writeVolume(volumes['tls']!, secret, first, 0o440);
  writeVolume(volumes['resources']!, options.resources ?? configItems('resources'), first);
  writeVolume(volumes['scenarios']!, configItems('scenarios'), first);
  for (const name of ['tls', 'resources', 'scenarios']) chmodSync(volumes[name]!, 0o555);
  mkdirSync(volumes['tmp']!);

  const mounts = Object.fromEntries(
    container.volumeMounts!.map((m) => [m.mountPath, volumes[m.name]!]),
  );
  // One pass, longest path first, so that a moved path is never moved again.
  const paths = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
    'g',
  );
  const move = (text: string) => text.replace(pattern, (path) => mounts[path]!);
  const env: Record<string, string> = {};
  for (const e of container.env!) {
    if (e.valueFrom)
      env[e.name] = options.token; // the one secretKeyRef: the control token
    else if (e.name.endsWith('_HOST'))
      env[e.name] = '127.0.0.1'; // 0.0.0.0 in the pod
    else if (e.name.endsWith('_PORT')) env[e.name] = '0';
    else env[e.name] = move(e.value ?? '');
  }
  // Outside a cluster the pod's own API server is a stand-in, or none: the cluster project
  // (test/cluster/) runs the real one.
  const review = options.tokenReview ?? 'off';
  const args = container.args!.map((a) =>
    a === '--token-review=in-cluster' ? `--token-review=${review}` : move(a),
  );
  return { args, env, secret, volumes };
}
