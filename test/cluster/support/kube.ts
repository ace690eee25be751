/**
 * The cluster tests' hands on the real single-node cluster of scripts/cluster.sh: kubectl
 * with its kubeconfig, the pods' state as `kubectl get pods` prints it, and the files the
 * tests need (the kubeconfig, the binaries' folder). Nothing here fakes a part of the cluster.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const KUBE_BIN = process.env['KUBE_BIN_DIR'] ?? join(REPO, '.kube/bin');
export const CLUSTER_DIR = process.env['MOCK_ISTIOD_CLUSTER_DIR'] ?? join(REPO, '.kube/cluster');
export const KUBECONFIG = join(CLUSTER_DIR, 'kubeconfig');
export const INSTALL_HINT =
  'run `bash scripts/install-kubernetes.sh` (it builds the pinned Kubernetes from the Go module proxy and installs etcd, containerd and the CNI plugins with apt-get)';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (bounded), never throwing: the caller reads the code. */
export function run(
  command: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: options.env ?? process.env,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: error && code === 1 && !stderr ? error.message : stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** kubectl on the cluster; rejects with its stderr when it fails. */
export async function kubectl(
  args: readonly string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const result = await run(
    join(KUBE_BIN, 'kubectl'),
    ['--kubeconfig', KUBECONFIG, ...args],
    options,
  );
  if (result.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  }
  return result.stdout;
}

/** A pod's line of `kubectl get pods`, as a reader sees it: NAME, READY, STATUS, RESTARTS. */
export interface PodLine {
  name: string;
  ready: string;
  status: string;
  restarts: string;
  line: string;
}

/** `kubectl get pods -l <selector>` in a namespace, read back from its printed table. */
export async function getPods(namespace: string, selector: string): Promise<PodLine[]> {
  const out = await kubectl(['-n', namespace, 'get', 'pods', '-l', selector]);
  return out
    .trim()
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [name = '', ready = '', status = '', restarts = ''] = line.trim().split(/\s+/);
      return { name, ready, status, restarts, line };
    });
}

/** The one pod of a selector (undefined while there is none, or more than one). */
export async function onePod(namespace: string, selector: string): Promise<PodLine | undefined> {
  const pods = (await getPods(namespace, selector)).filter((p) => p.status !== 'Terminating');
  return pods.length === 1 ? pods[0] : undefined;
}

/** A pod's field by JSONPath (`{.status.podIP}`). */
export async function podField(namespace: string, pod: string, path: string): Promise<string> {
  return (await kubectl(['-n', namespace, 'get', 'pod', pod, '-o', `jsonpath=${path}`])).trim();
}

/** The events of one object, as `kubectl get events` prints their messages. */
export async function eventMessages(namespace: string, name: string): Promise<string[]> {
  const out = await kubectl([
    '-n',
    namespace,
    'get',
    'events',
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
  ]);
  return out.split('\n').filter((l) => l.trim() !== '');
}

/** Envoy's admin API of a pod's sidecar, through pilot-agent (`pilot-agent request GET <path>`). */
export function sidecarAdmin(namespace: string, pod: string, path: string): Promise<string> {
  const exec = ['-n', namespace, 'exec', pod, '-c', 'istio-proxy', '--'];
  return kubectl([...exec, 'pilot-agent', 'request', 'GET', path]);
}

/** The sidecar's Envoy stats, by name. */
export async function sidecarStats(namespace: string, pod: string): Promise<Map<string, string>> {
  const out = await sidecarAdmin(namespace, pod, 'stats');
  const stats = new Map<string, string>();
  for (const line of out.split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) stats.set(line.slice(0, at), line.slice(at + 2).trim());
  }
  return stats;
}

/** Why the cluster tests cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  for (const name of ['kube-apiserver', 'kubelet', 'kubectl', 'kube-proxy', 'coredns']) {
    if (!existsSync(join(KUBE_BIN, name))) {
      return `cluster tests need the Kubernetes binaries, but ${join(KUBE_BIN, name)} is missing: ${INSTALL_HINT}`;
    }
  }
  if (process.getuid?.() !== 0) {
    return 'cluster tests need root (containerd, the kubelet, iptables and mounts): run them as root';
  }
  return undefined;
}
