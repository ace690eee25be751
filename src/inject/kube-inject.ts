/**
 * Runs the real `istioctl kube-inject` offline: the pinned istioctl (`npm run
 * install-istio`), the chart's template and values (injection-files.ts), and nothing that
 * could reach a cluster. `-r default` skips istioctl's revision lookup (without it istioctl
 * waits for ever on a Kubernetes API); KUBECONFIG names a file that does not exist and HOME
 * is an empty temporary folder, so no kubeconfig of the machine is read. A timeout ends it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findIstio } from '../envoy/find-istio.js';
import { loadInjectionFiles, type InjectionImages } from './injection-files.js';

export const KUBE_INJECT_TIMEOUT_MS = 60_000;

export type KubeInjectResult =
  | { ok: true; yaml: string; args: string[] }
  | { ok: false; message: string; stderr: string; code: number | null };

export interface KubeInjectOptions {
  /** The Deployment or Pod YAML to inject. */
  input: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** The sidecar's image, over the chart's (`docker.io/istio/proxyv2:<Istio's tag>`). */
  images?: InjectionImages;
}

/** Throws `ISTIO_NOT_FOUND` when istioctl or the chart files are missing. */
export async function kubeInject(options: KubeInjectOptions): Promise<KubeInjectResult> {
  const env = options.env ?? process.env;
  const istio = findIstio(env);
  const files = loadInjectionFiles(istio.dir, env, options.images);
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-inject-'));
  try {
    const path = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const args = [
      'kube-inject',
      '-f',
      path('input.yaml', options.input),
      '--injectConfigFile',
      path('inject-config.yaml', files.injectConfig),
      '--meshConfigFile',
      path('mesh.yaml', files.mesh),
      '--valuesFile',
      path('values.json', files.values),
      '-r',
      'default',
    ];
    const home = join(dir, 'home');
    mkdirSync(home);
    const childEnv = {
      PATH: env['PATH'] ?? '',
      HOME: home,
      KUBECONFIG: join(home, 'no-kubeconfig'),
    };
    const run = await runFor(
      istio.istioctl,
      args,
      childEnv,
      options.timeoutMs ?? KUBE_INJECT_TIMEOUT_MS,
    );
    const shown = ['istioctl', ...args.map((a) => a.replace(`${dir}/`, ''))];
    if (run.timedOut) {
      return {
        ok: false,
        message: `istioctl kube-inject did not finish within ${options.timeoutMs ?? KUBE_INJECT_TIMEOUT_MS} ms`,
        stderr: run.stderr,
        code: run.code,
      };
    }
    if (run.code !== 0) {
      return {
        ok: false,
        message: `istioctl kube-inject exited with code ${run.code}`,
        stderr: run.stderr,
        code: run.code,
      };
    }
    return { ok: true, yaml: run.stdout, args: shown };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runFor(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${err.message}`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
