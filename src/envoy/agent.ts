/**
 * Plays pilot-agent's part for one sidecar, on a laptop: starts its status server (15020),
 * writes the sidecar bootstrap (pointing the readiness listener at that server), starts a
 * real Envoy with it, and watches the pod the way the kubelet does, through Envoy's readiness
 * listener (15021). `startAgent()` returns once Envoy's admin API answers (not yet LIVE);
 * `stop()` is idempotent and stops in reverse order (pod watch → Envoy → status server).
 */
import { EventEmitter } from 'node:events';
import pino, { type Logger } from 'pino';
import { DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS, makeSidecarBootstrap } from '../bootstrap/sidecar.js';
import type { SidecarBootstrapOptions } from '../bootstrap/sidecar.js';
import { resolveSidecarPorts } from './sidecar-ports.js';
import { ADMIN_ADDRESS_KEY } from './admin-address.js';
import { WatchedSidecar, type Sidecar, type SidecarEvents } from './pod-watch.js';
import { startStatusServer, type StatusServer } from './agent-status-server.js';
import { startEnvoy, type EnvoyLogLevel, type EnvoyProcess } from './envoy-process.js';
import { ReadinessProbe, type ReadinessResult } from './readiness-probe.js';

export interface AgentPorts {
  /** pilot-agent's status server (15020). */
  status: number;
  /** Envoy's admin API (15000). */
  admin: number;
  /** Envoy's readiness listener (15021). */
  readiness: number;
  /** Envoy's Prometheus listener (15090). */
  prometheus: number;
}

export interface AgentOptions {
  /** The pod and control plane; the ports here are replaced by `ports`. */
  bootstrap: Partial<SidecarBootstrapOptions>;
  /** Default: a real sidecar's (15020, 15000, 15021, 15090); 0 picks a free port. */
  ports: Partial<AgentPorts>;
  envoyBin: string;
  envoyLogLevel: EnvoyLogLevel;
  /** How often the kubelet-like watcher probes 15021 (a sidecar's startup probe: 1 s). */
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** Consecutive failures before a ready sidecar counts as unready again. */
  failureThreshold: number;
  /** A pino logger; silent by default. */
  logger: Logger;
}

export interface AgentEvents extends SidecarEvents {
  /** The status server answered `/healthz/ready` with this result. */
  readiness: [result: ReadinessResult];
}

export interface Agent extends Sidecar {
  readonly ports: AgentPorts;
  readonly probe: ReadinessProbe;
  readonly events: EventEmitter<AgentEvents>;
  /** The last `/healthz/ready` result the status server gave, if any. */
  lastReadiness(): ReadinessResult | undefined;
}

export async function startAgent(
  partial: Partial<AgentOptions> & Pick<AgentOptions, 'bootstrap'>,
): Promise<Agent> {
  const options = withDefaults(partial);
  const ports = await resolvePorts(options.ports);
  const log = options.logger;
  const events = new EventEmitter<AgentEvents>();
  const probe = new ReadinessProbe(`http://127.0.0.1:${ports.admin}`);
  const status = await startStatusServer({
    host: '127.0.0.1',
    port: ports.status,
    probe,
    log,
    onProbe: (result) => events.emit('readiness', result),
  });
  ports.status = status.port;
  let envoy: EnvoyProcess;
  try {
    envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({
        ...options.bootstrap,
        // Tells the mock (its live page, `status`) where this Envoy's admin API is.
        metadata: {
          [ADMIN_ADDRESS_KEY]: `127.0.0.1:${ports.admin}`,
          ...options.bootstrap.metadata,
        },
        adminPort: ports.admin,
        agentPort: ports.status,
        readinessPort: ports.readiness,
        prometheusPort: ports.prometheus,
      }),
      envoyBin: options.envoyBin === '' ? undefined : options.envoyBin,
      logLevel: options.envoyLogLevel,
    });
  } catch (err) {
    await status.close();
    throw err;
  }
  log.info({ envoyPid: envoy.pid, admin: envoy.adminUrl, ports }, 'Envoy started');
  return new AgentImpl(options, ports, envoy, probe, status, events);
}

class AgentImpl extends WatchedSidecar implements Agent {
  constructor(
    options: AgentOptions,
    readonly ports: AgentPorts,
    envoy: EnvoyProcess,
    readonly probe: ReadinessProbe,
    private readonly status: StatusServer,
    readonly events: EventEmitter<AgentEvents>,
  ) {
    const name = options.bootstrap.podName ?? DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS.podName;
    super(envoy, ports, { ...options, name, waitTimeoutMs: 20_000 }, (view) => {
      const ready = `${view.ready}/${view.total}`;
      options.logger.debug({ ready, status: view.status, probe: view.lastProbe }, 'pod view');
      events.emit('pod', view);
    });
  }

  lastReadiness(): ReadinessResult | undefined {
    return this.status.last;
  }

  protected explainPod(): string {
    return (
      `last readiness: ${JSON.stringify(this.lastReadiness() ?? null)}\n` +
      `last Envoy log lines:\n${this.envoy.logTail(20)}`
    );
  }

  protected async stopProcesses(): Promise<void> {
    this.probe.terminate();
    await this.envoy.stop();
    await this.status.close();
  }
}

function withDefaults(
  partial: Partial<AgentOptions> & Pick<AgentOptions, 'bootstrap'>,
): AgentOptions {
  return {
    ports: {},
    envoyBin: '',
    envoyLogLevel: 'warning',
    probeIntervalMs: 1_000,
    probeTimeoutMs: 3_000,
    failureThreshold: 3,
    logger: pino({ level: 'silent' }),
    ...partial,
  };
}

/**
 * A real sidecar's ports, 0 replaced with a free port except for the status server, which
 * binds port 0 itself. Envoy's ports must be known before Envoy starts: they are written into
 * the bootstrap (the readiness and Prometheus listeners are named after them, and
 * `prometheus_stats` points at the admin port).
 */
function resolvePorts(requested: Partial<AgentPorts>): Promise<AgentPorts> {
  return resolveSidecarPorts(requested, ['admin', 'readiness', 'prometheus']);
}
