/**
 * istiod's own xDS server as a child process: `istiod-ref` (tools/istiod-ref), built by
 * scripts/install-istio.sh next to pilot-agent. It prints one line of addresses when every
 * port listens; its log (istiod's ACK/NACK/PUSH lines among them) goes to stderr, kept here.
 * The conformance suite's oracle (docs/conformance.md), and what `generate` asks
 * (docs/generate.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { defaultIstioBinDir, INSTALL_ISTIO_HINT } from '../envoy/find-istio.js';
import { MockIstiodError } from '../util/errors.js';

export interface ReferenceOptions {
  /** Kubernetes objects (Services, Pods) istiod generates from. */
  kubeFile: string;
  /** Istio configs (VirtualServices, Sidecars, …). */
  configFile?: string;
  /** A MeshConfig (YAML) applied over istiod's defaults, e.g. `outboundTrafficPolicy`. */
  meshFile?: string;
  /** Where the plaintext port listens (default 127.0.0.1:0), e.g. a restarted istiod's. */
  xds?: string;
  /** A TLS port like 15012: the server's certificate, key, and the roots client certs chain to. */
  tls?: { cert: string; key: string; clientCa: string };
  /** Variables istiod reads, over the parent's environment (e.g. PILOT_MAX_REQUESTS_PER_SECOND). */
  istiodEnv?: Record<string, string>;
}

export interface ReferenceServer {
  /** `host:port` of the plaintext port (istiod's 15010). */
  xds: string;
  /** `host:port` of the TLS port, when asked for. */
  tlsXds: string | undefined;
  /** `http://host:port` of istiod's debug handlers. */
  debugUrl: string;
  /** Asks for a full push, as a config change would. */
  push(): Promise<void>;
  /** istiod's log lines so far. */
  log(): string[];
  close(): Promise<void>;
}

/**
 * The path of istiod-ref, in `ISTIO_BIN_DIR` or `<package root>/.istio/bin`; a
 * `MockIstiodError` (`ISTIO_NOT_FOUND`) naming the fix when it is not there.
 */
export function referenceBinary(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env['ISTIO_BIN_DIR'] || defaultIstioBinDir();
  const path = join(dir, 'istiod-ref');
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new MockIstiodError(
      'ISTIO_NOT_FOUND',
      `istiod's own xDS server (the reference server), ${path}, is not there: ${INSTALL_ISTIO_HINT}`,
      { details: { path } },
    );
  }
  return path;
}

const LOG_LINES_KEPT = 20_000;

export async function startReference(
  options: ReferenceOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReferenceServer> {
  const args = ['-kube', options.kubeFile, '-exit-with-stdin'];
  if (options.configFile) args.push('-config', options.configFile);
  if (options.meshFile) args.push('-mesh', options.meshFile);
  if (options.xds) args.push('-xds', options.xds);
  if (options.tls) {
    args.push('-tls-xds', '127.0.0.1:0', '-cert', options.tls.cert, '-key', options.tls.key);
    args.push('-client-ca', options.tls.clientCa);
  }
  const child = spawn(referenceBinary(env), args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.istiodEnv && { env: { ...process.env, ...options.istiodEnv } }),
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    lines.push(line);
    if (lines.length > LOG_LINES_KEPT) lines.splice(0, lines.length - LOG_LINES_KEPT);
  });
  const addresses = await firstLine(child, lines);
  const debugUrl = `http://${addresses.debug}`;
  return {
    xds: addresses.xds,
    tlsXds: addresses.tlsXds,
    debugUrl,
    async push() {
      const res = await fetch(`${debugUrl}/ref/push`, { method: 'POST' });
      if (res.status !== 204) throw new Error(`istiod-ref /ref/push answered ${res.status}`);
    },
    log: () => lines.slice(),
    close: () => stop(child),
  };
}

interface Addresses {
  xds: string;
  tlsXds?: string;
  debug: string;
}

function firstLine(child: ChildProcess, log: string[]): Promise<Addresses> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(child);
      reject(new Error(`istiod-ref did not start in 30 s; its last lines:\n${tail(log)}`));
    }, 30_000);
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => {
      clearTimeout(timer);
      rl.close();
      try {
        resolve(JSON.parse(line) as Addresses);
      } catch {
        reject(new Error(`istiod-ref printed ${JSON.stringify(line)}, not its addresses`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`istiod-ref exited (${String(code)}) before listening:\n${tail(log)}`));
    });
  });
}

/** istiod-ref's own words when it failed (`istiod-ref: …` to the end), else istiod's last lines. */
function tail(log: string[]): string {
  const own = log.findIndex((line) => line.startsWith('istiod-ref: '));
  return (own >= 0 ? log.slice(own, own + 15) : log.slice(-15)).join('\n');
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.stdin?.end();
    child.kill('SIGTERM');
  });
}
