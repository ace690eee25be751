/**
 * The kubelet's side of a sidecar, shared by the emulated agent and the real pilot-agent:
 * probes Envoy's readiness listener (`:15021/healthz/ready`) every interval and folds the
 * outcomes into the pod's view (`PodState`), calling `onChange` when READY or STATUS changes.
 *
 * Until the sidecar is first ready it also asks pilot-agent's status port directly, as a
 * sidecar's `pilot-agent wait` start-up hook does: Envoy's readiness listener refuses
 * connections until Envoy is LIVE, so only this way does pilot-agent log its reason while
 * Envoy waits.
 */
import { PROMETHEUS_PATH, READINESS_PATH } from '../bootstrap/probe-listeners.js';
import { httpProbe, PodState, type PodView } from './agent-pod-view.js';

/** Where a sidecar answers on loopback: pilot-agent's status port, Envoy's readiness and stats. */
export function sidecarUrls(ports: { status: number; readiness: number; prometheus: number }) {
  return {
    statusUrl: `http://127.0.0.1:${ports.status}${READINESS_PATH}`,
    readinessUrl: `http://127.0.0.1:${ports.readiness}${READINESS_PATH}`,
    prometheusUrl: `http://127.0.0.1:${ports.prometheus}${PROMETHEUS_PATH}`,
  };
}

export interface PodWatchOptions {
  name: string;
  /** pilot-agent's `/healthz/ready` on its status port. */
  statusUrl: string;
  /** The same path through Envoy's readiness listener, as the kubelet probes it. */
  readinessUrl: string;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** Consecutive failures before a ready sidecar counts as unready again. */
  failureThreshold: number;
  /** True once the sidecar has exited or is stopping: no probe is recorded after that. */
  isOver: () => boolean;
  onChange: (view: PodView) => void;
}

export class PodWatch {
  readonly #pod: PodState;
  #timer: NodeJS.Timeout | undefined;
  #everReady = false;
  #stopped = false;

  constructor(private readonly options: PodWatchOptions) {
    this.#pod = new PodState(options.name, options.failureThreshold);
    // `onChange` fires on changes only: the first view (1/2 Running) is `view`.
    this.#schedule(0);
  }

  get view(): PodView {
    return this.#pod.view;
  }

  /** The sidecar's process ended on its own: the pod shows `Error`. */
  exited(): void {
    if (this.#stopped) return;
    if (this.#pod.exited()) this.options.onChange(this.#pod.view);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
  }

  #over(): boolean {
    return this.#stopped || this.options.isOver();
  }

  async #tick(): Promise<void> {
    if (this.#over()) return;
    const { statusUrl, readinessUrl, probeTimeoutMs } = this.options;
    if (!this.#everReady) await httpProbe(statusUrl, probeTimeoutMs);
    const outcome = await httpProbe(readinessUrl, probeTimeoutMs);
    if (outcome.ok) this.#everReady = true;
    if (this.#over()) return;
    if (this.#pod.record(outcome)) this.options.onChange(this.#pod.view);
    this.#schedule(this.options.probeIntervalMs);
  }
}
