/**
 * A pod's network, made for one test and removed after it: two network namespaces joined by a
 * veth pair, never the host's own interfaces. `pod` plays the pod (192.0.2.1, where the
 * capture rules and Envoy go), `ext` plays the world outside it (192.0.2.2: an external
 * service, and the kubelet that probes the pod). 192.0.2.0/24 is TEST-NET-1 (RFC 5737),
 * routed nowhere. Needs root, `ip` and `iptables`; without them `createNetnsPair` throws
 * saying what failed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export const POD_IP = '192.0.2.1';
export const EXT_IP = '192.0.2.2';

export interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NetnsPair {
  pod: string;
  ext: string;
  /** Runs a command in a namespace to its end (or `timeoutMs`, default 10 s). */
  exec(ns: string, argv: string[], timeoutMs?: number): Promise<Exec>;
  /** Starts a long-running process in a namespace, optionally as another UID; killed by close. */
  spawn(ns: string, argv: string[], options?: { uid?: number }): Spawned;
  /** `curl` from a namespace: the status code (0: no answer within maxTimeS, default 10) and the body. */
  curl(ns: string, url: string, maxTimeS?: number): Promise<{ status: number; body: string }>;
  /** Kills every process started here and deletes both namespaces; idempotent. */
  close(): Promise<void>;
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
}

let counter = 0;

function sh(argv: string[]): void {
  const [file, ...args] = argv;
  const run = spawnSync(file ?? '', args, { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0) {
    throw new Error(
      `\`${argv.join(' ')}\` failed (${run.error?.message ?? `exit ${run.status}`}): ${run.stderr.trim()}` +
        ' — the interception tests need root, iproute2 (ip netns) and iptables',
    );
  }
}

export function createNetnsPair(): NetnsPair {
  const tag = `${process.pid % 100_000}x${counter++}`;
  const pod = `mi-pod-${tag}`;
  const ext = `mi-ext-${tag}`;
  const vethPod = `mip${tag}`.slice(0, 15);
  const vethExt = `mie${tag}`.slice(0, 15);
  const children: ChildProcess[] = [];
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await Promise.all(children.map(stop));
    for (const ns of [pod, ext]) spawnSync('ip', ['netns', 'del', ns], { timeout: 10_000 });
  };
  try {
    sh(['ip', 'netns', 'add', pod]);
    sh(['ip', 'netns', 'add', ext]);
    sh(['ip', 'link', 'add', vethPod, 'netns', pod, 'type', 'veth', 'peer', vethExt, 'netns', ext]);
    for (const [ns, dev, ip] of [
      [pod, vethPod, POD_IP],
      [ext, vethExt, EXT_IP],
    ] as const) {
      sh(['ip', '-n', ns, 'addr', 'add', `${ip}/24`, 'dev', dev]);
      sh(['ip', '-n', ns, 'link', 'set', dev, 'up']);
      sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    }
  } catch (err) {
    void close();
    throw err;
  }
  const exec = (ns: string, argv: string[], timeoutMs = 10_000): Promise<Exec> =>
    new Promise((resolve) => {
      const child = spawn('ip', ['netns', 'exec', ns, ...argv], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  return {
    pod,
    ext,
    exec,
    spawn(ns, argv, options = {}) {
      const asUser =
        options.uid === undefined
          ? []
          : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups'];
      const child = spawn('ip', ['netns', 'exec', ns, ...asUser, ...argv], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      return { child, stdout: () => stdout, stderr: () => stderr };
    },
    async curl(ns, url, maxTimeS = 10) {
      const run = await exec(
        ns,
        ['curl', '-s', '-m', String(maxTimeS), '-o', '-', '-w', '\n%{http_code}', url],
        15_000,
      );
      const cut = run.stdout.lastIndexOf('\n');
      return { status: Number(run.stdout.slice(cut + 1)), body: run.stdout.slice(0, cut) };
    },
    close,
  };
}

/** SIGTERM, then SIGKILL if it is still there after 5 s; resolves once it has exited. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
