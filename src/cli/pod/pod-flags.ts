/**
 * The flags the sidecar commands share: where the mock is and the sidecar's ports (`bootstrap`,
 * `agent`, `pilot-agent`), the control plane's root certificate and the pod's token (`bootstrap`,
 * `agent`), checked once here together with the pod's environment.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describePodEnvProblems, podIdentityFromEnv } from '../../bootstrap/pod-env.js';
import { SIDECAR_PORTS, type SidecarBootstrapOptions } from '../../bootstrap/sidecar.js';
import { MockIstiodError } from '../../util/errors.js';
import type { EnvoyLogLevel } from '../../envoy/envoy-process.js';
import { parseChoice, parsePort } from '../args.js';
import { LOG_LEVELS, type LogLevel } from '../logger.js';

const DEFAULT_DISCOVERY = `127.0.0.1:${SIDECAR_PORTS.discovery}`;

/** Where the sidecar finds the mock and which ports it answers on: every sidecar command's. */
export const POD_PORT_FLAGS = {
  'discovery-address': { type: 'string' },
  xds: { type: 'string' },
  'admin-port': { type: 'string' },
  'status-port': { type: 'string' },
  'readiness-port': { type: 'string' },
  'prometheus-port': { type: 'string' },
} as const;

export const ENVOY_LOG_LEVELS = [
  'trace',
  'debug',
  'info',
  'warning',
  'error',
  'critical',
  'off',
] as const satisfies readonly EnvoyLogLevel[];

/** The log levels `agent` and `pilot-agent` take: Envoy's, and the command's own. */
export function podLogLevels(
  values: { 'envoy-log-level'?: string | undefined; 'log-level'?: string | undefined },
  env: NodeJS.ProcessEnv,
): { envoy: EnvoyLogLevel; own: LogLevel } {
  return {
    envoy: parseChoice('--envoy-log-level', values['envoy-log-level'], ENVOY_LOG_LEVELS, 'warning'),
    own: parseChoice('--log-level', values['log-level'] ?? env.LOG_LEVEL, LOG_LEVELS, 'info'),
  };
}

/** The flags `bootstrap` and `agent` share, with their help lines. */
export const POD_BOOTSTRAP_FLAGS = {
  ...POD_PORT_FLAGS,
  'tls-root-cert': { type: 'string' },
  'token-file': { type: 'string' },
} as const;

export const POD_BOOTSTRAP_HELP = `Inputs, as pilot-agent reads them: the environment variables POD_NAME, POD_NAMESPACE,
INSTANCE_IP and SERVICE_ACCOUNT (required), and every ISTIO_META_<KEY> (node metadata
<KEY>, prefix removed; ISTIO_META_WORKLOAD_NAME also names node.cluster).

  --discovery-address <host:port>  the control plane, mesh config discoveryAddress
                                   (default ${DEFAULT_DISCOVERY}, where \`mock-istiod serve\` listens)
  --xds <mode>                     sotw|delta: ADS state of the world or delta (default sotw)
  --admin-port <port>              Envoy's admin port on 127.0.0.1 (default ${SIDECAR_PORTS.admin})
  --status-port <port>             pilot-agent's status port, behind /healthz/ready (default ${SIDECAR_PORTS.agentStatus})
  --readiness-port <port>          Envoy's readiness listener (default ${SIDECAR_PORTS.readiness})
  --prometheus-port <port>         Envoy's Prometheus listener (default ${SIDECAR_PORTS.prometheus})
  --tls-root-cert <file>           connect to the control plane over TLS, trusting this root
                                   certificate (\`mock-istiod serve --tls\` writes root-cert.pem;
                                   Envoy expects the name istiod.istio-system.svc on its certificate)
  --token-file <file>              send this service account token on the ADS stream, as
                                   pilot-agent does (\`mock-istiod token\` mints one; a TLS mock
                                   refuses streams without it unless it runs --xds-auth=off)`;

type PodBootstrapValues = { [K in keyof typeof POD_BOOTSTRAP_FLAGS]?: string };

/** The result of reading flags and environment: options, or one line saying what is wrong. */
export type PodBootstrapInput =
  { ok: true; options: Partial<SidecarBootstrapOptions> } | { ok: false; message: string };

/**
 * Bootstrap options from the shared flags and the pod's environment. Flag mistakes throw
 * a `USAGE` error; environment problems come back as one line naming every variable.
 */
export function podBootstrapInput(
  values: PodBootstrapValues,
  env: NodeJS.ProcessEnv,
  options: { allowFreePorts?: boolean } = {},
): PodBootstrapInput {
  // Port 0 ("pick a free one") only makes sense where the ports are chosen before Envoy
  // starts (the agent); a written bootstrap needs them all.
  const port = options.allowFreePorts === true ? parsePort : parseFixedPort;
  const discovery = parseHostPort(
    '--discovery-address',
    values['discovery-address'] ?? DEFAULT_DISCOVERY,
  );
  const flags: Partial<SidecarBootstrapOptions> = {
    discoveryHost: discovery.host,
    discoveryPort: discovery.port,
    xdsMode: parseChoice('--xds', values.xds, ['sotw', 'delta'] as const, 'sotw'),
    adminPort: port('--admin-port', values['admin-port'], SIDECAR_PORTS.admin),
    agentPort: port('--status-port', values['status-port'], SIDECAR_PORTS.agentStatus),
    readinessPort: port('--readiness-port', values['readiness-port'], SIDECAR_PORTS.readiness),
    prometheusPort: port('--prometheus-port', values['prometheus-port'], SIDECAR_PORTS.prometheus),
    tlsRootCertPath: tlsRootCert(values['tls-root-cert']),
    xdsToken: tokenFile(values['token-file']),
  };
  const identity = podIdentityFromEnv(env);
  if (!identity.ok) return { ok: false, message: describePodEnvProblems(identity.problems) };
  return { ok: true, options: { ...identity.value, ...flags } };
}

/** An absolute path (Envoy reads the file relative to its own working directory), or null. */
function tlsRootCert(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value === '')
    throw new MockIstiodError(
      'USAGE',
      '--tls-root-cert: expected the path of a PEM root certificate',
    );
  return resolve(value);
}

/** The token in `file` (pilot-agent's `var/run/secrets/tokens/istio-token`), or null. */
function tokenFile(file: string | undefined): string | null {
  if (file === undefined) return null;
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new MockIstiodError('USAGE', `--token-file: cannot read ${file} (${reason})`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new MockIstiodError(
      'USAGE',
      `--token-file: ${file} does not hold a token (one line, e.g. from \`mock-istiod token\`)`,
    );
  }
  return token;
}

/** `host:port` or `[v6]:port`, port 1-65535. */
export function parseHostPort(flag: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !(port >= 1 && port <= 65535)) {
    throw new MockIstiodError(
      'USAGE',
      `${flag}: expected host:port (for example ${DEFAULT_DISCOVERY}), got "${value}"`,
    );
  }
  return { host, port };
}

/** A port that is written into the bootstrap and so must be known: 1-65535. */
function parseFixedPort(flag: string, value: string | undefined, fallback: number): number {
  const port = parsePort(flag, value, fallback);
  if (port === 0)
    throw new MockIstiodError('USAGE', `${flag}: expected a port number 1-65535, got "0"`);
  return port;
}
