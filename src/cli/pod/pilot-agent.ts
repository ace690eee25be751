/**
 * `mock-istiod pilot-agent`: the REAL pilot-agent (built by `npm run install-istio`) for one
 * sidecar, against a running `mock-istiod serve --tls`. The mock mints the pod's token and
 * gives its root certificate; pilot-agent gets its workload certificate from the mock's CA,
 * writes Envoy's bootstrap from Istio's own template, starts our Envoy and proxies xDS.
 * Prints the pod as `agent` does, and pilot-agent's own log on stderr, until SIGINT/SIGTERM.
 * `agent` is the emulated twin: no Go needed.
 */
import { describePodEnvProblems, podIdentityFromEnv } from '../../bootstrap/pod-env.js';
import { ISTIOD_SERVICE_NAME } from '../../ca/security-options.js';
import { describeExit } from '../../envoy/envoy-exit.js';
import { findIstio } from '../../envoy/find-istio.js';
import { startPilotAgent, type PilotAgent } from '../../envoy/pilot-agent.js';
import { isMockIstiodError, MockIstiodError } from '../../util/errors.js';
import { probeTls } from '../../tls/tls-probe.js';
import { isObject } from '../../util/guards.js';
import { parseChoice, parsePort } from '../args.js';
import { ENVOY_LOG_LEVELS, parseHostPort, podLogLevels, POD_PORT_FLAGS } from './pod-flags.js';
import {
  CONTROL_FLAGS,
  CONTROL_HELP,
  controlTarget,
  clientFor,
  reportControlErrors,
} from '../client/control-client.js';
import { createCliLogger, LOG_LEVELS } from '../logger.js';
import { runPodUntilDone } from './pod-run.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';
import { mintRemotely } from './token.js';

const AGENT_LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'none'] as const;

export const PILOT_AGENT_USAGE = `Usage: mock-istiod pilot-agent [options]

Runs the real pilot-agent (\`npm run install-istio\` builds it) for one sidecar against a running
\`mock-istiod serve --tls\`: the mock mints the pod's token and gives its root certificate, and
pilot-agent does the rest as in a pod (CSR to the mock's CA, Envoy's bootstrap from Istio's
template, our Envoy started, xDS proxied). Prints the pod as \`kubectl get pod -w\` would (READY
1/2 → 2/2) and pilot-agent's own log on stderr. \`mock-istiod agent\` is the emulated twin.

Inputs, as pilot-agent reads them: POD_NAME, POD_NAMESPACE, INSTANCE_IP, SERVICE_ACCOUNT
(required), ISTIO_META_* and the rest of the environment; PROXY_CONFIG (JSON) fields are laid
over the ones set here.

  --discovery-address <host:port>  the mock's TLS xDS port (default 127.0.0.1:15012)
  --xds <mode>                     delta|sotw between pilot-agent and the mock (default delta,
                                   as pilot-agent; sotw sets ISTIO_DELTA_XDS=false)
  --admin-port <port>              Envoy's admin port (default 15000; 0 picks a free port)
  --status-port <port>             pilot-agent's status port (default 15020; all interfaces)
  --readiness-port <port>          Envoy's readiness listener (default 15021; all interfaces)
  --prometheus-port <port>         Envoy's Prometheus listener (default 15090; loopback)
  --no-token                       start without a token: the CSR is refused
  --envoy-log-level <level>        ${ENVOY_LOG_LEVELS.join('|')} (default warning)
  --agent-log-level <level>        pilot-agent's: ${AGENT_LOG_LEVELS.join('|')} (default info)
  --log-level <level>              this command's own: ${LOG_LEVELS.join('|')} (default info)
${CONTROL_HELP}
  -h, --help                       show this help

pilot-agent, istioctl and Istio's bootstrap template are in ISTIO_BIN_DIR or .istio/bin;
Envoy is ENVOY_BIN, or the one mock-istiod install-envoy installs.
`;

const OPTIONS = {
  ...POD_PORT_FLAGS,
  'no-token': { type: 'boolean', default: false },
  'envoy-log-level': { type: 'string' },
  'agent-log-level': { type: 'string' },
  'log-level': { type: 'string' },
  ...CONTROL_FLAGS,
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function pilotAgent(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, PILOT_AGENT_USAGE);
  if (!values) return 0;
  const discovery = values['discovery-address'] ?? '127.0.0.1:15012';
  const { host, port } = parseHostPort('--discovery-address', discovery);
  const ports = {
    admin: parsePort('--admin-port', values['admin-port'], 15000),
    status: parsePort('--status-port', values['status-port'], 15020),
    readiness: parsePort('--readiness-port', values['readiness-port'], 15021),
    prometheus: parsePort('--prometheus-port', values['prometheus-port'], 15090),
  };
  const xdsMode = parseChoice('--xds', values.xds, ['delta', 'sotw'] as const, 'delta');
  const levels = podLogLevels(values, env);
  const agentLogLevel = parseChoice(
    '--agent-log-level',
    values['agent-log-level'],
    AGENT_LOG_LEVELS,
    'info',
  );
  const log = createCliLogger(levels.own, 'auto');
  const identity = podIdentityFromEnv(env);
  if (!identity.ok) return fail(describePodEnvProblems(identity.problems), 2);
  const proxyConfig = userProxyConfig(env.PROXY_CONFIG);
  try {
    findIstio(env);
  } catch (err) {
    if (isMockIstiodError(err, 'ISTIO_NOT_FOUND')) return fail(err.message, 1);
    throw err;
  }
  const target = controlTarget(values, env);
  return reportControlErrors(target, async () => {
    const rootCert = await clientFor(target).call('rootCert');
    await checkTlsPort(host, port, rootCert);
    const { namespace, serviceAccount } = identity.value;
    const token = values['no-token']
      ? undefined
      : (await mintRemotely(target, { namespace, serviceAccount })).token;
    let running: PilotAgent;
    try {
      running = await startPilotAgent({
        podEnv: env,
        discoveryAddress: discovery,
        rootCert,
        token,
        xdsMode,
        ports,
        envoyLogLevel: levels.envoy,
        agentLogLevel,
        proxyConfig,
        onOutput: (chunk) => process.stderr.write(chunk),
      });
    } catch (err) {
      if (isMockIstiodError(err, 'ENVOY_NOT_FOUND')) return fail(err.message, 1);
      if (isMockIstiodError(err, 'ENVOY_EXITED')) {
        return fail(`pilot-agent exited at start (${describeExit(err.details.exit)})`, 1);
      }
      throw err;
    }
    log.info({ dir: running.dir, ports: running.ports, xds: xdsMode }, 'pilot-agent started');
    return runPodUntilDone(running, log, {
      exited: 'pilot-agent exited',
      stopping: 'stopping pilot-agent',
    });
  });
}

/** The user's own PROXY_CONFIG, a JSON object, or a usage error naming it. */
function userProxyConfig(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) {
    throw new MockIstiodError(
      'USAGE',
      `PROXY_CONFIG: expected a JSON object of ProxyConfig fields (for example {"concurrency":2}), got ${JSON.stringify(text)}`,
    );
  }
  return parsed;
}

/**
 * pilot-agent speaks TLS to any discovery port but 15010 and would retry a plaintext mock
 * forever, logging handshake errors: say it in one line before starting it.
 */
async function checkTlsPort(host: string, port: number, rootCert: string): Promise<void> {
  const probe = await probeTls({
    host,
    port,
    ca: rootCert,
    alpn: ['h2'],
    servername: ISTIOD_SERVICE_NAME,
    timeoutMs: 3_000,
  });
  if (probe.ok) return;
  throw new MockIstiodError(
    'CONTROL_API_FAILED',
    `the mock's xDS port ${host}:${port} does not answer TLS with its root certificate (${probe.reason}): ` +
      'pilot-agent needs `mock-istiod serve --tls` (and --discovery-address naming its port)',
  );
}
