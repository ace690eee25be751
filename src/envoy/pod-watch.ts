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
import { waitFor, type WaitOptions } from '../util/wait.js';
import { httpProbe, PodState, type PodView } from './agent-pod-view.js';
import type { EnvoyProcess } from './envoy-process.js';

/** How the kubelet-like watcher probes a sidecar. */
export interface ProbeTiming {
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** Consecutive failures before a ready sidecar counts as unready again. */
  failureThreshold: number;
}

export interface SidecarEvents {
  /** READY or STATUS of the pod changed (the first view is `podView()`). */
  pod: [view: PodView];
}

/** A sidecar on loopback, watched as the kubelet watches its pod. */
export interface Sidecar {
  /** Its Envoy: `waitForLive()`, `stats()`, `configDump()`, `logs()`, `exited`. */
  readonly envoy: EnvoyProcess;
  /** `http://127.0.0.1:<status>/healthz/ready`: pilot-agent directly. */
  readonly statusUrl: string;
  /** `http://127.0.0.1:<readiness>/healthz/ready`: through Envoy, as the kubelet probes. */
  readonly readinessUrl: string;
  /** `http://127.0.0.1:<prometheus>/stats/prometheus`. */
  readonly prometheusUrl: string;
  /** READY and STATUS as `kubectl get pod` shows them. */
  podView(): PodView;
  /** Waits until the pod view matches; a timed-out wait says where the pod was stuck. */
  waitForPod(predicate: (view: PodView) => boolean, options?: WaitOptions): Promise<PodView>;
  /** Idempotent: ends the watch, then the processes. */
  stop(): Promise<void>;
}

/**
 * A sidecar on loopback watched as a pod: its URLs, its pod view, a wait on that view, and a
 * stop that ends the watch before the processes (idempotent). The emulated agent and the
 * real pilot-agent differ only in what they explain on a timed-out wait and how they stop.
 */
export abstract class WatchedSidecar implements Sidecar {
  readonly statusUrl: string;
  readonly readinessUrl: string;
  readonly prometheusUrl: string;
  readonly #watch: PodWatch;
  readonly #waitTimeoutMs: number;
  #stopping: Promise<void> | undefined;

  constructor(
    readonly envoy: EnvoyProcess,
    ports: { status: number; readiness: number; prometheus: number },
    pod: { name: string; waitTimeoutMs: number } & ProbeTiming,
    onChange: (view: PodView) => void,
  ) {
    this.statusUrl = `http://127.0.0.1:${ports.status}${READINESS_PATH}`;
    this.readinessUrl = `http://127.0.0.1:${ports.readiness}${READINESS_PATH}`;
    this.prometheusUrl = `http://127.0.0.1:${ports.prometheus}${PROMETHEUS_PATH}`;
    this.#waitTimeoutMs = pod.waitTimeoutMs;
    this.#watch = new PodWatch({
      name: pod.name,
      statusUrl: this.statusUrl,
      readinessUrl: this.readinessUrl,
      probeIntervalMs: pod.probeIntervalMs,
      probeTimeoutMs: pod.probeTimeoutMs,
      failureThreshold: pod.failureThreshold,
      isOver: () => this.#stopping !== undefined || envoy.exitStatus !== undefined,
      onChange,
    });
    void envoy.exited.then(() => {
      if (this.#stopping === undefined) this.#watch.exited();
    });
  }

  podView(): PodView {
    return this.#watch.view;
  }

  waitForPod(predicate: (view: PodView) => boolean, options: WaitOptions = {}): Promise<PodView> {
    return waitFor(() => predicate(this.#watch.view) && this.#watch.view, {
      description: 'the pod view to match',
      timeoutMs: this.#waitTimeoutMs,
      // Where the pod was stuck, and why: the predicate alone cannot say.
      explain: () => `pod view: ${JSON.stringify(this.#watch.view)}\n${this.explainPod()}`,
      ...options,
    });
  }

  stop(): Promise<void> {
    this.#stopping ??= (this.#watch.stop(), this.stopProcesses());
    return this.#stopping;
  }

  /** What else a timed-out `waitForPod` says: the last log lines, the last readiness. */
  protected abstract explainPod(): string;
  /** Stops the sidecar's processes, once, after the watch has stopped. */
  protected abstract stopProcesses(): Promise<void>;
}

interface PodWatchOptions extends ProbeTiming {
  name: string;
  /** pilot-agent's `/healthz/ready` on its status port. */
  statusUrl: string;
  /** The same path through Envoy's readiness listener, as the kubelet probes it. */
  readinessUrl: string;
  /** True once the sidecar has exited or is stopping: no probe is recorded after that. */
  isOver: () => boolean;
  onChange: (view: PodView) => void;
}

class PodWatch {
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
