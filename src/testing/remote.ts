/**
 * `connectMockIstiod(url, { token })`: drive a mock istiod that runs elsewhere (a container,
 * another machine, `mock-istiod serve` in another terminal) over its control API, with the
 * same methods as `localControl(mock)` (control.ts). Refusals keep the API's problems:
 * a bad fault throws `INVALID_FAULT`, bad resources `INVALID_RESOURCES`; a mock that cannot
 * be asked throws `CONTROL_API_FAILED`.
 *
 *   const istiod = await connectMockIstiod('http://127.0.0.1:15014');
 *   await istiod.withFault({ scenario: 'down' }, async () => { … });
 */
import type { FaultInfo, FaultSpec } from '../faults/model.js';
import type { JournalEntry, JournalFilter } from '../journal/journal.js';
import { isObject } from '../util/guards.js';
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';
import {
  withControlFault,
  type ControlFault,
  type MockIstiodControl,
  type ResourcesChanged,
} from './control.js';

export interface ConnectOptions {
  /** The bearer token the mock requires (`--control-token`), if any. */
  token?: string;
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Answer = Record<string, unknown>;

class ControlApi {
  constructor(
    private readonly base: string,
    private readonly options: ConnectOptions,
  ) {}

  /** The answer's JSON; a refusal becomes a `MockIstiodError` with the API's problems. */
  async call(
    method: Method,
    path: string,
    body?: unknown,
    refusal?: 'INVALID_FAULT' | 'INVALID_RESOURCES',
  ): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new MockIstiodError(
        'CONTROL_API_FAILED',
        `cannot reach mock-istiod at ${this.base}: ${reason}`,
        { cause: err },
      );
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new MockIstiodError(
        'CONTROL_API_FAILED',
        `${this.base} answered ${method} ${path} with something other than JSON`,
      );
    }
    const answer: Answer = isObject(json) ? json : { items: json };
    if (response.ok) return answer;
    const problems = Array.isArray(answer.problems) ? (answer.problems as Problem[]) : [];
    const error = typeof answer.error === 'string' ? answer.error : text;
    if (refusal && response.status === 400) throw new MockIstiodError(refusal, error, { problems });
    throw new MockIstiodError(
      'CONTROL_API_FAILED',
      `mock-istiod at ${this.base} answered ${response.status} to ${method} ${path}: ${error}`,
    );
  }
}

function journalQuery(filter: JournalFilter = {}): string {
  const query = new URLSearchParams();
  if (filter.node !== undefined) query.set('node', filter.node);
  if (filter.typeUrl !== undefined) query.set('type', filter.typeUrl);
  if (filter.kind !== undefined) query.set('kind', [filter.kind].flat().join(','));
  if (filter.since !== undefined) query.set('since', String(filter.since));
  if (filter.limit !== undefined) query.set('limit', String(filter.limit));
  return query.toString();
}

/**
 * Connects to the control API at `url` (`http://host:15014`) and checks that a mock answers
 * there (`GET /ready`); rejects with `CONTROL_API_FAILED` otherwise.
 */
export async function connectMockIstiod(
  url: string,
  options: ConnectOptions = {},
): Promise<MockIstiodControl> {
  const api = new ControlApi(url.replace(/\/+$/, ''), options);
  await api.call('GET', '/ready');
  const handle = (info: FaultInfo): ControlFault => ({
    id: info.id,
    info: async () =>
      (await api.call('GET', `/control/faults/${encodeURIComponent(info.id)}`)).fault as FaultInfo,
    remove: async () => {
      // Removing twice is fine, as in process: a 404 means it is gone already.
      await api
        .call('DELETE', `/control/faults/${encodeURIComponent(info.id)}`)
        .catch((err: unknown) => {
          if (!(err instanceof MockIstiodError && / 404 /.test(err.message))) throw err;
        });
    },
  });
  const control: MockIstiodControl = {
    withhold: async () => {
      await api.call('POST', '/control/withhold');
    },
    release: async () => (await api.call('POST', '/control/release')).released === true,
    push: async (selector = {}) =>
      Number((await api.call('POST', '/control/push', selector)).streams),
    disconnect: async (selector = {}, code, message) =>
      Number(
        (await api.call('POST', '/control/disconnect', { ...selector, code, message }))
          .disconnected,
      ),
    down: async () => {
      await api.call('POST', '/control/down');
    },
    up: async () => {
      await api.call('POST', '/control/up');
    },
    reset: async () => {
      await api.call('POST', '/control/reset');
    },
    inject: async (fault: FaultSpec) =>
      handle(
        (await api.call('POST', '/control/faults', fault, 'INVALID_FAULT')).fault as FaultInfo,
      ),
    withFault: (fault, fn) => withControlFault(control, fault, fn),
    listFaults: async () => (await api.call('GET', '/control/faults')).faults as FaultInfo[],
    setResources: async (resources) =>
      (await api.call(
        'PUT',
        '/control/resources',
        { resources },
        'INVALID_RESOURCES',
      )) as unknown as ResourcesChanged,
    journal: async (filter) =>
      (await api.call('GET', `/debug/journal?${journalQuery(filter)}`)).items as JournalEntry[],
  };
  return control;
}
