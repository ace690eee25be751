/**
 * The one client of the control API, typed by the table of operations: the CLI, the remote
 * test client (`connectMockIstiod`), token minting and the live page all send their requests
 * through it. One timeout policy (10 s a request unless told otherwise) and one error type:
 * a `MockIstiodError` whose code says what happened —
 *
 *   CONTROL_REFUSED     the mock answered 4xx: `details.status`, its `{error, problems}`
 *   CONTROL_API_FAILED  nothing answered in time, it failed (5xx), or it is not a mock
 *
 * It uses `fetch` and nothing of the server, so the page's bundle can include it.
 */
import { MockIstiodError } from '../util/errors.js';
import { isObject } from '../util/guards.js';
import { reasonOf } from '../util/reason.js';
import { parseDuration } from '../util/duration.js';
import type { Problem } from '../util/problems.js';
import { requestFor, type OutgoingRequest } from './http-shape.js';
import type { Operation, OutputOf, RequestOf } from './operation.js';
import { refusalError } from './refusal.js';
import { operationNamed, type OperationName, type OperationNamed } from './table.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ControlClientOptions {
  /** `http://127.0.0.1:15014`, or the page's own origin. */
  baseUrl: string;
  /** The control token (`--control-token`), or where to read it on each request. */
  token?: string | (() => string | undefined);
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
  /** Added to "cannot reach" messages: what to check (the CLI names its flags). */
  unreachableHint?: string;
}

/** The input an operation takes, as a rest argument: optional when every field is. */
export type InputArgs<N extends OperationName> =
  object extends RequestOf<OperationNamed<N>>
    ? [input?: RequestOf<OperationNamed<N>>]
    : [input: RequestOf<OperationNamed<N>>];

export interface ControlClient {
  readonly baseUrl: string;
  /** Runs an operation: its answer, or a `MockIstiodError` as above. */
  call<N extends OperationName>(
    name: N,
    ...input: InputArgs<N>
  ): Promise<OutputOf<OperationNamed<N>>>;
  /** Runs an operation chosen at run time (its input unchecked by the compiler). */
  run(op: Operation, input?: Record<string, unknown>): Promise<unknown>;
  /** GETs a route outside the table (istiod's debug views): its JSON answer. */
  getJson<T>(path: string): Promise<T>;
  /** GETs a route that answers text (`/metrics`). */
  getText(path: string): Promise<string>;
  /**
   * The HTTP status a GET answers with, its body left unread (a stream such as
   * `/ui/events`), or 0 when nothing answers.
   */
  status(path: string): Promise<number>;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function createControlClient(options: ControlClientOptions): ControlClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hint = options.unreachableHint ? `; ${options.unreachableHint}` : '';
  const where = baseUrl.replace(/^https?:\/\//, '');

  /** The token as the header, read anew for each request (the page's may change). */
  function authorization(): Record<string, string> {
    const token = typeof options.token === 'function' ? options.token() : options.token;
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  async function send(
    request: OutgoingRequest,
    op?: Operation,
    waitMs = 0,
  ): Promise<{ status: number; text: string }> {
    const headers = authorization();
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${request.path}`, {
        method: request.method,
        headers,
        signal: AbortSignal.timeout(timeoutMs + waitMs),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
    } catch (err) {
      throw new MockIstiodError(
        'CONTROL_API_FAILED',
        `cannot reach mock-istiod at ${where} (${reasonOf(err)})${hint}`,
        { cause: err },
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw new MockIstiodError(
        'CONTROL_API_FAILED',
        `mock-istiod at ${where} did not finish answering ${request.method} ${request.path} (${reasonOf(err)})`,
        { cause: err },
      );
    }
    if (response.status >= 400) throw refusal(request, response.status, text, op);
    return { status: response.status, text };
  }

  function refusal(request: OutgoingRequest, status: number, text: string, op?: Operation) {
    const parsed = parseJson(text);
    const body = parsed.ok && isObject(parsed.value) ? parsed.value : {};
    const error = typeof body.error === 'string' ? body.error : text.trim().slice(0, 200);
    const problems = Array.isArray(body.problems) ? (body.problems as Problem[]) : [];
    const what = `${request.method} ${request.path.split('?')[0] ?? ''}`;
    if (status >= 500) {
      return new MockIstiodError(
        'CONTROL_API_FAILED',
        `mock-istiod at ${where} failed (${status}) on ${what}: ${error}`,
      );
    }
    const message = error || `answered ${status} to ${what}`;
    return refusalError(status, message, problems, op?.name, parsed.ok ? parsed.value : undefined);
  }

  function json(request: OutgoingRequest, text: string): unknown {
    const parsed = parseJson(text);
    if (parsed.ok) return parsed.value;
    throw new MockIstiodError(
      'CONTROL_API_FAILED',
      `${where} answered ${request.method} ${request.path} with something other than JSON`,
    );
  }

  async function run(op: Operation, input?: Record<string, unknown>): Promise<unknown> {
    const request = requestFor(op, input);
    // An operation that waits before it answers gets that long beyond the usual timeout.
    const waitMs = op.waits ? (parseDuration(input?.[op.waits.field]) ?? op.waits.defaultMs) : 0;
    const { text } = await send(request, op, waitMs);
    return op.produces ? text : json(request, text);
  }

  return {
    baseUrl,
    call: (name, ...[input]) => run(operationNamed(name), input) as never,
    run,
    async getJson<T>(path: string): Promise<T> {
      const request = { method: 'GET', path } as const;
      return json(request, (await send(request)).text) as T;
    },
    async getText(path: string): Promise<string> {
      return (await send({ method: 'GET', path })).text;
    },
    async status(path: string): Promise<number> {
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          headers: authorization(),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.body?.cancel();
        return response.status;
      } catch {
        return 0;
      }
    },
  };
}
