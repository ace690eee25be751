/**
 * The pod as `kubectl get pod` shows it: two containers (the app, counted ready, and
 * `istio-proxy`), whose readiness comes from a kubelet-like probe of Envoy's readiness
 * listener (`GET :15021/healthz/ready`, 3 s timeout, success on 200-399). So `READY` reads
 * `1/2` until Envoy serves that listener *and* the agent behind it says ready, then `2/2`.
 *
 * Like the kubelet, one success makes the container ready and `failureThreshold` consecutive
 * failures make it unready again.
 */
export interface PodView {
  name: string;
  /** Ready containers: the app is always counted; the sidecar when its probe passes. */
  ready: 1 | 2;
  total: 2;
  /** `Running` while Envoy runs; `Error` once it has exited. */
  status: 'Running' | 'Error';
  restarts: number;
  startedAt: Date;
  /** What the last probe saw: `200`, `HTTP probe failed with statuscode: 503`, a connect error. */
  lastProbe: string;
}

export interface ProbeOutcome {
  ok: boolean;
  detail: string;
  /** The start of the answer's body, when an answer came (to tell who answered). */
  body?: string;
}

/** One kubelet-style HTTP probe: success on 200-399; the detail reads like the kubelet's event. */
export async function httpProbe(url: string, timeoutMs: number): Promise<ProbeOutcome> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.text()).slice(0, 200);
    const ok = response.status >= 200 && response.status < 400;
    return {
      ok,
      detail: ok
        ? String(response.status)
        : `HTTP probe failed with statuscode: ${response.status}`,
      body,
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'ECONNREFUSED') {
      return { ok: false, detail: `Get "${url}": dial tcp: connect: connection refused` };
    }
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    const reason = timedOut ? 'context deadline exceeded' : (cause?.code ?? String(err));
    return { ok: false, detail: `Get "${url}": ${reason}` };
  }
}

/** Folds probe outcomes into the pod's view, kubelet-style; returns true when the view changed. */
export class PodState {
  #view: PodView;
  #failures = 0;

  constructor(
    name: string,
    private readonly failureThreshold: number,
    now = new Date(),
  ) {
    this.#view = {
      name,
      ready: 1,
      total: 2,
      status: 'Running',
      restarts: 0,
      startedAt: now,
      lastProbe: '',
    };
  }

  get view(): PodView {
    return { ...this.#view };
  }

  /** Records a probe; true when READY or STATUS changed. */
  record(outcome: ProbeOutcome): boolean {
    const before = this.#view.ready;
    this.#failures = outcome.ok ? 0 : this.#failures + 1;
    let ready = before;
    if (outcome.ok) ready = 2;
    else if (this.#failures >= this.failureThreshold) ready = 1;
    this.#view = { ...this.#view, ready, lastProbe: outcome.detail };
    return ready !== before;
  }

  /** Envoy exited: the sidecar is down. True when the view changed. */
  exited(): boolean {
    if (this.#view.status === 'Error') return false;
    this.#view = { ...this.#view, status: 'Error', ready: 1 };
    return true;
  }
}

/** The header `kubectl get pod` prints, sized for a pod name. */
export function formatPodHeader(name: string): string {
  return formatRow(name.length, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
}

/** `orders-v1-0   1/2     Running   0          12s` */
export function formatPodLine(view: PodView, now = new Date()): string {
  const age = formatAge(now.getTime() - view.startedAt.getTime());
  return formatRow(view.name.length, [
    view.name,
    `${view.ready}/${view.total}`,
    view.status,
    String(view.restarts),
    age,
  ]);
}

/** kubectl's columns: each padded to its widest value plus three spaces. */
function formatRow(nameWidth: number, cells: readonly string[]): string {
  const widths = [Math.max(nameWidth, 4), 5, 7, 8, 0];
  return cells
    .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
    .join('');
}

/** kubectl's short ages: `45s`, `2m5s`, `12m`, `3h`. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h`;
}
