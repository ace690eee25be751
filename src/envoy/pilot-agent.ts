/**
 * Runs the REAL pilot-agent (built by `npm run install-istio`) for one sidecar, against a
 * control plane such as the mock serving TLS: lays out its file tree in a temporary directory
 * (`pilot-agent-tree.ts`), starts `pilot-agent proxy sidecar` there with the pod's variables
 * and a `PROXY_CONFIG` naming our Envoy, and watches the pod as the kubelet would. pilot-agent
 * signs its CSR with the CA, writes Envoy's bootstrap from Istio's template, starts Envoy and
 * proxies xDS to the control plane, exactly as in a pod.
 *
 * `startPilotAgent()` returns once Envoy's admin API answers (not yet LIVE); `stop()` is
 * idempotent: SIGTERM, then SIGKILL to pilot-agent's whole process group (its Envoy too),
 * and the directory is removed.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePodEnvProblems, podIdentityFromEnv } from '../bootstrap/pod-env.js';
import { ADMIN_ADDRESS_KEY } from '../bootstrap/sidecar.js';
import { MockIstiodError } from '../util/errors.js';
import { resolveSidecarPorts } from './sidecar-ports.js';
import { EnvoyChild } from './envoy-child.js';
import type { EnvoyLogLevel } from './envoy-process.js';
import { EnvoyProcess } from './envoy-process.js';
import { findEnvoy } from './find-envoy.js';
import { findIstio, type IstioBinaries } from './find-istio.js';
import {
  layOutPilotAgentTree,
  makeProxyConfig,
  PILOT_AGENT_FILES,
  pilotAgentEnv,
  type PilotAgentPorts,
} from './pilot-agent-tree.js';
import { WatchedSidecar, type Sidecar, type SidecarEvents } from './pod-watch.js';

export type { PilotAgentPorts } from './pilot-agent-tree.js';

export interface PilotAgentOptions {
  /**
   * The container's environment: `POD_NAME`, `POD_NAMESPACE`, `INSTANCE_IP`,
   * `SERVICE_ACCOUNT` (required), `ISTIO_META_*` and anything else pilot-agent reads. Only
   * these reach pilot-agent (with `PATH` and `HOME` when missing), as in a container.
   */
  podEnv: Record<string, string | undefined>;
  /** The control plane's TLS xDS port, `host:port` (`ProxyConfig.discoveryAddress`). */
  discoveryAddress: string;
  /** The PEM root certificate that signed the control plane's serving certificate. */
  rootCert: string;
  /** The pod's service account token (audience istio-ca); undefined: no token file. */
  token: string | undefined;
  /** pilot-agent's xDS toward the control plane: delta (its default) or sotw. */
  xdsMode: 'sotw' | 'delta';
  /** Default: a real sidecar's (15000, 15020, 15021, 15090); 0 picks a free port. */
  ports: Partial<PilotAgentPorts>;
  /** Default: ENVOY_BIN or the installed Envoy (`findEnvoy`). */
  envoyBin: string;
  /** Default: ISTIO_BIN_DIR or .istio/bin. */
  istio: IstioBinaries | undefined;
  /** Envoy's worker threads. */
  concurrency: number;
  /** Envoy's log level (`--proxyLogLevel`). */
  envoyLogLevel: EnvoyLogLevel;
  /** pilot-agent's own log level (`--log_output_level default:<level>`). */
  agentLogLevel: 'debug' | 'info' | 'warn' | 'error' | 'none';
  /** `ProxyConfig` fields laid over ours (theirs win). */
  proxyConfig: Record<string, unknown>;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  failureThreshold: number;
  /** Called with pilot-agent's (and its Envoy's) output as it comes; `logs()` keeps it too. */
  onOutput: ((chunk: string) => void) | undefined;
  /** How long to wait for Envoy's admin API after starting pilot-agent. */
  startTimeoutMs: number;
}

export type PilotAgentEvents = SidecarEvents;

export interface PilotAgent extends Sidecar {
  /**
   * pilot-agent's process, seen through its Envoy's admin API: `waitForLive()`, `stats()`,
   * `configDump()`; `logs()` are pilot-agent's and Envoy's together, as `kubectl logs`
   * shows them; `exited` is pilot-agent's exit.
   */
  readonly envoy: EnvoyProcess;
  readonly ports: PilotAgentPorts;
  /** pilot-agent's working directory (the pod's root), removed by `stop()`. */
  readonly dir: string;
  readonly events: EventEmitter<PilotAgentEvents>;
}

type Required = Pick<PilotAgentOptions, 'podEnv' | 'discoveryAddress' | 'rootCert' | 'token'>;

export async function startPilotAgent(
  partial: Partial<PilotAgentOptions> & Required,
): Promise<PilotAgent> {
  const options = withDefaults(partial);
  const identity = podIdentityFromEnv(options.podEnv);
  if (!identity.ok) {
    throw new MockIstiodError('INVALID_OPTIONS', describePodEnvProblems(identity.problems), {
      problems: identity.problems,
    });
  }
  const istio = options.istio ?? findIstio();
  const envoyBin = options.envoyBin === '' ? findEnvoy() : options.envoyBin;
  const ports = await resolvePorts(options.ports);
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-pilot-agent-'));
  let child: EnvoyChild;
  try {
    layOutPilotAgentTree(dir, {
      bootstrapTemplate: istio.bootstrapTemplate,
      rootCert: options.rootCert,
      token: options.token,
    });
    const proxyConfig = makeProxyConfig({
      discoveryAddress: options.discoveryAddress,
      envoyBin,
      ports,
      concurrency: options.concurrency,
      overrides: options.proxyConfig,
    });
    const env = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      // pilot-agent turns ISTIO_META_* into node metadata: this names Envoy's admin API for
      // the mock's live page and `status` (the pod's own value, if it has one, wins).
      [`ISTIO_META_${ADMIN_ADDRESS_KEY}`]: `127.0.0.1:${ports.admin}`,
      ...options.podEnv,
      ...pilotAgentEnv(proxyConfig, ports, options.xdsMode),
    };
    const args = ['proxy', 'sidecar', '--proxyLogLevel', options.envoyLogLevel];
    args.push('--log_output_level', `default:${options.agentLogLevel}`);
    child = new EnvoyChild(istio.pilotAgent, args, dir, 1 << 20, {
      cwd: dir,
      env,
      processGroup: true,
      onOutput: options.onOutput,
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const envoy = new EnvoyProcess(
    child,
    `http://127.0.0.1:${ports.admin}`,
    join(dir, PILOT_AGENT_FILES.envoyBootstrap),
  );
  try {
    await child.waitUnlessExited(
      async () => (await envoy.ready().catch(() => undefined)) ?? false,
      {
        timeoutMs: options.startTimeoutMs,
        intervalMs: 50,
        description: `pilot-agent's Envoy to answer on its admin port ${ports.admin}`,
      },
    );
  } catch (err) {
    await envoy.stop({ timeoutMs: 1_000 });
    throw err;
  }
  return new PilotAgentImpl(options, identity.value.podName, ports, envoy, dir);
}

class PilotAgentImpl extends WatchedSidecar implements PilotAgent {
  readonly events = new EventEmitter<PilotAgentEvents>();

  constructor(
    options: PilotAgentOptions,
    podName: string,
    readonly ports: PilotAgentPorts,
    envoy: EnvoyProcess,
    readonly dir: string,
  ) {
    super(envoy, ports, { ...options, name: podName, waitTimeoutMs: 30_000 }, (view) =>
      this.events.emit('pod', view),
    );
  }

  protected explainPod(): string {
    return `last pilot-agent log lines:\n${this.envoy.logTail(20)}`;
  }

  protected async stopProcesses(): Promise<void> {
    await this.envoy.stop({ timeoutMs: 5_000 });
  }
}

function withDefaults(partial: Partial<PilotAgentOptions> & Required): PilotAgentOptions {
  return {
    xdsMode: 'delta',
    ports: {},
    envoyBin: '',
    istio: undefined,
    concurrency: 1,
    envoyLogLevel: 'warning',
    agentLogLevel: 'info',
    proxyConfig: {},
    probeIntervalMs: 1_000,
    probeTimeoutMs: 3_000,
    failureThreshold: 3,
    startTimeoutMs: 20_000,
    onOutput: undefined,
    ...partial,
  };
}

/** A real sidecar's ports where none is given; 0 becomes a free port (all distinct). */
function resolvePorts(requested: Partial<PilotAgentPorts>): Promise<PilotAgentPorts> {
  return resolveSidecarPorts(requested, ['admin', 'status', 'readiness', 'prometheus']);
}
