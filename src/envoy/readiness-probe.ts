/**
 * pilot-agent's readiness probe against a real Envoy's admin API, with its two caches: once
 * CDS and LDS have each had a successful update, the config check passes for good; once
 * Envoy has been LIVE with its workers started, the Envoy check passes for good ("they will
 * not go back in the life time of Envoy process", as Istio's comment says). So after the
 * first success the probe stays ready, even when istiod goes away or a later push is NACKed.
 */
import {
  configStatusError,
  envoyStateError,
  parseUpdateStats,
  READY_STATS_FILTER,
  UPDATE_STATS_FILTER,
} from './readiness.js';

export type ReadinessResult = { ready: true } | { ready: false; reason: string };

export interface ReadinessProbeOptions {
  /** Timeout of the update-stats request (pilot-agent: 1 s). */
  updateStatsTimeoutMs?: number;
  /** Timeout of the server-state request (pilot-agent: 3 s). */
  readyStatsTimeoutMs?: number;
}

export class ReadinessProbe {
  #receivedFirstUpdate = false;
  #atLeastOnceReady = false;
  #terminated: string | undefined;
  readonly #updateTimeoutMs: number;
  readonly #readyTimeoutMs: number;

  /** `adminUrl` is Envoy's admin API, like `http://127.0.0.1:15000`. */
  constructor(
    readonly adminUrl: string,
    options: ReadinessProbeOptions = {},
  ) {
    this.#updateTimeoutMs = options.updateStatsTimeoutMs ?? 1_000;
    this.#readyTimeoutMs = options.readyStatsTimeoutMs ?? 3_000;
  }

  /** True once CDS and LDS have each been updated successfully (cached from then on). */
  get receivedFirstUpdate(): boolean {
    return this.#receivedFirstUpdate;
  }

  /** True once Envoy has been seen LIVE with workers started (cached from then on). */
  get atLeastOnceReady(): boolean {
    return this.#atLeastOnceReady;
  }

  /** From now on the probe fails with `server is terminated: <cause>` (the agent is stopping). */
  terminate(cause = 'context canceled'): void {
    this.#terminated ??= cause;
  }

  /** One probe, in pilot-agent's order: config first, then Envoy's state. */
  async check(): Promise<ReadinessResult> {
    const reason = (await this.#configReason()) ?? (await this.#envoyReason());
    return reason === undefined ? { ready: true } : { ready: false, reason };
  }

  async #configReason(): Promise<string | undefined> {
    if (this.#receivedFirstUpdate) return undefined;
    let text: string;
    try {
      text = await this.#getStats(UPDATE_STATS_FILTER, this.#updateTimeoutMs);
    } catch (err) {
      return errorMessage(err);
    }
    let reason: string | undefined;
    try {
      reason = configStatusError(parseUpdateStats(text));
    } catch (err) {
      return errorMessage(err);
    }
    if (reason === undefined) this.#receivedFirstUpdate = true;
    return reason;
  }

  async #envoyReason(): Promise<string | undefined> {
    if (this.#terminated !== undefined) return `server is terminated: ${this.#terminated}`;
    if (this.#atLeastOnceReady) return undefined;
    let reason: string | undefined;
    try {
      reason = envoyStateError(await this.#getStats(READY_STATS_FILTER, this.#readyTimeoutMs));
    } catch (err) {
      return `failed to get readiness stats: ${errorMessage(err)}`;
    }
    if (reason === undefined) this.#atLeastOnceReady = true;
    return reason;
  }

  /** GET `/stats?usedonly&filter=<regex>`; like Go's client, anything but 200 is an error. */
  async #getStats(filter: string, timeoutMs: number): Promise<string> {
    const url = `${this.adminUrl}/stats?usedonly&filter=${encodeURIComponent(filter)}`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new Error(`Get "${url}": ${fetchFailure(err)}`, { cause: err });
    }
    const body = await response.text();
    if (response.status !== 200) throw new Error(`unexpected status ${response.status}`);
    return body;
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The useful part of a fetch failure: `connect ECONNREFUSED 127.0.0.1:15000`, or a timeout. */
function fetchFailure(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  }
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : errorMessage(err);
}
