/**
 * A small client for Envoy's admin API (the port in the bootstrap's `admin` section), using
 * Node's built-in fetch. It reads what tests and the `status` command need: `/ready`,
 * `/server_info`, stats and `config_dump`. Shapes were checked against Envoy 1.40.
 */
import { MockIstiodError } from '../util/errors.js';
import { waitFor } from '../util/wait.js';
import type { WaitOptions } from '../util/wait.js';

/** A stat's value: counters and gauges are numbers, text stats (`*.version_text`) strings. */
export type StatValue = number | string;

/** One listener as the seed lab prints it: `name direction port`. */
export interface ListenerSummary {
  name: string;
  /** `INBOUND`, `OUTBOUND` or `UNSPECIFIED` (Envoy omits the default in `config_dump`). */
  direction: string;
  /** The configured port (`address.socket_address.port_value`), 0 when not a socket address. */
  port: number;
}

/** A listener's actual bound address from `/listeners` (a configured port 0 shows its real port). */
export interface BoundListener {
  name: string;
  address: string;
  port: number;
}

export interface AdminResponse {
  status: number;
  body: string;
}

export interface AdminClientOptions {
  /** Per-request deadline in milliseconds (default 5 s). */
  requestTimeoutMs?: number;
}

/** The error for an admin endpoint answering with an unexpected status or shape. */
function adminApiError(message: string, status?: number): MockIstiodError<'ENVOY_ADMIN_FAILED'> {
  return new MockIstiodError('ENVOY_ADMIN_FAILED', message, { details: { status } });
}

interface StatsJson {
  stats?: Array<{ name?: string; value?: unknown }>;
}

interface ConfigDumpJson {
  configs?: unknown[];
}

export class EnvoyAdminClient {
  readonly #requestTimeoutMs: number;

  /** `adminUrl` is like `http://127.0.0.1:15000`. */
  constructor(
    readonly adminUrl: string,
    options: AdminClientOptions = {},
  ) {
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  }

  /** GET any admin path; the status and body, whatever the status. */
  async get(path: string): Promise<AdminResponse> {
    const response = await fetch(new URL(path, this.adminUrl), {
      signal: AbortSignal.timeout(this.#requestTimeoutMs),
    });
    return { status: response.status, body: await response.text() };
  }

  /** `/ready`: `200 LIVE` once live, otherwise `503 <STATE>` (body trimmed). */
  async ready(): Promise<AdminResponse> {
    const { status, body } = await this.get('/ready');
    return { status, body: body.trim() };
  }

  /** The `state` from `/server_info`: `LIVE`, `DRAINING`, `PRE_INITIALIZING`, `INITIALIZING`. */
  async serverInfoState(): Promise<string> {
    const info = (await this.getJson('/server_info')) as { state?: unknown };
    if (typeof info.state !== 'string') throw adminApiError('/server_info has no state');
    return info.state;
  }

  /** Every counter, gauge and text stat (histograms left out), by name. */
  async stats(): Promise<Map<string, StatValue>> {
    return parseStats((await this.getJson('/stats?format=json')) as StatsJson);
  }

  /** One stat by its exact name, or undefined when Envoy has no such stat (or it is filtered). */
  async stat(name: string): Promise<StatValue | undefined> {
    const filter = `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    const query = new URLSearchParams({ format: 'json', filter });
    const stats = parseStats((await this.getJson(`/stats?${query.toString()}`)) as StatsJson);
    return stats.get(name);
  }

  /**
   * Parsed `/config_dump`, or `/config_dump?resource=<resource>` (v3 names such as
   * `dynamic_listeners`, `static_listeners`, `dynamic_active_clusters`, `static_clusters`).
   */
  async configDump(resource?: string): Promise<unknown> {
    const query = resource === undefined ? '' : `?${new URLSearchParams({ resource }).toString()}`;
    return this.getJson(`/config_dump${query}`);
  }

  /** Active dynamic (LDS) listeners as `{ name, direction, port }`; warming ones are left out. */
  async dynamicListeners(): Promise<ListenerSummary[]> {
    const dump = (await this.configDump('dynamic_listeners')) as ConfigDumpJson;
    return (dump.configs ?? []).flatMap((entry) => {
      const listener = (entry as { active_state?: { listener?: unknown } }).active_state?.listener;
      return listener === undefined ? [] : [summarizeListener(listener)];
    });
  }

  /** Static (bootstrap) listeners as `{ name, direction, port }`. */
  async staticListeners(): Promise<ListenerSummary[]> {
    const dump = (await this.configDump('static_listeners')) as ConfigDumpJson;
    return (dump.configs ?? []).map((entry) =>
      summarizeListener((entry as { listener?: unknown }).listener ?? {}),
    );
  }

  /** Every listener's actual local address, from `/listeners?format=json`. */
  async boundListeners(): Promise<BoundListener[]> {
    const json = (await this.getJson('/listeners?format=json')) as {
      listener_statuses?: Array<{
        name?: string;
        local_address?: { socket_address?: { address?: string; port_value?: number } };
      }>;
    };
    return (json.listener_statuses ?? []).map((status) => ({
      name: status.name ?? '',
      address: status.local_address?.socket_address?.address ?? '',
      port: status.local_address?.socket_address?.port_value ?? 0,
    }));
  }

  /** Names of the active dynamic (CDS) clusters. */
  async dynamicActiveClusters(): Promise<string[]> {
    const dump = (await this.configDump('dynamic_active_clusters')) as ConfigDumpJson;
    return (dump.configs ?? []).flatMap((entry) => {
      const name = (entry as { cluster?: { name?: unknown } }).cluster?.name;
      return typeof name === 'string' ? [name] : [];
    });
  }

  /** Waits until `/ready` is 200 and `listener_manager.workers_started` is 1. */
  async waitForLive(options: WaitOptions = {}): Promise<void> {
    await waitFor(() => this.isLive(), { description: 'Envoy to be LIVE', ...options });
  }

  /** True when `/ready` is 200 and the workers have started (listeners accept). */
  async isLive(): Promise<boolean> {
    const { status } = await this.ready();
    return status === 200 && (await this.stat('listener_manager.workers_started')) === 1;
  }

  /** Waits until stat `name` satisfies `predicate`, and returns its value. */
  async waitForStat(
    name: string,
    predicate: (value: StatValue | undefined) => boolean,
    options: WaitOptions = {},
  ): Promise<StatValue | undefined> {
    const { value } = await waitFor(
      async () => {
        const current = await this.stat(name);
        return predicate(current) && { value: current };
      },
      { description: `stat ${name} to match`, ...options },
    );
    return value;
  }

  private async getJson(path: string): Promise<unknown> {
    const { status, body } = await this.get(path);
    if (status !== 200) {
      throw adminApiError(`GET ${path} answered ${status}: ${body.trim()}`, status);
    }
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw adminApiError(`GET ${path} did not answer JSON`, status);
    }
  }
}

function parseStats(json: StatsJson): Map<string, StatValue> {
  const stats = new Map<string, StatValue>();
  for (const entry of json.stats ?? []) {
    const { name, value } = entry;
    if (typeof name === 'string' && (typeof value === 'number' || typeof value === 'string')) {
      stats.set(name, value);
    }
  }
  return stats;
}

function summarizeListener(listener: unknown): ListenerSummary {
  const l = listener as {
    name?: string;
    traffic_direction?: string;
    address?: { socket_address?: { port_value?: number } };
  };
  return {
    name: l.name ?? '',
    direction: l.traffic_direction ?? 'UNSPECIFIED',
    port: l.address?.socket_address?.port_value ?? 0,
  };
}
