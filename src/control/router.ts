/**
 * A small router for the HTTP control API: exact paths (or `:param` segments), JSON bodies
 * with a size limit, JSON answers (pretty with `?pretty`) or text (for `/metrics`). Each
 * concern lives in its own routes file and is listed in routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';
import type { JsonSchema } from '../core/fields.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ControlRequest {
  method: Method;
  path: string;
  query: URLSearchParams;
  /** `:name` segments of the route's path. */
  params: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  /** Aborted when the client goes away before its answer (a wait then ends). */
  signal?: AbortSignal;
}

export interface ControlResponse {
  status: number;
  /** Serialised as JSON, unless `contentType` is given and `body` is a string or bytes. */
  body: unknown;
  contentType?: string;
  /** Extra response headers (`cache-control`, …). */
  headers?: Record<string, string>;
  /**
   * Takes the response over instead of `body` (a server-sent event stream): the server writes
   * nothing itself, and `takeOver` owns `res` until it ends.
   */
  takeOver?: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Who may call a route. `token` (the default): the control token, when one is set, as
 * `Authorization: Bearer <token>`. `public`: anyone (the live page's own files, which hold no
 * data). `token-or-query`: the token as the header or as `?token=` (a browser's EventSource
 * cannot send headers).
 */
export type RouteAccess = 'token' | 'public' | 'token-or-query';

export interface Route {
  method: Method;
  /** `/control/faults`, `/control/faults/:id`, or `/ui/*path` (the rest of the path). */
  path: string;
  /** One line for `GET /` (the endpoint list). */
  summary: string;
  /** The control operation it runs (src/api/table.ts), when it is one. */
  operation?: string;
  /** The JSON Schema of the body it takes, if any (for the OpenAPI document). */
  body?: JsonSchema;
  /** Its query parameters, as OpenAPI parameter objects. */
  query?: JsonSchema[];
  /** The JSON Schema of its success answer (JSON unless said otherwise). */
  answer?: JsonSchema;
  /** The status of its success answer, when not 200. */
  success?: 201;
  /** The content type of its success answer, when not JSON (for the OpenAPI document). */
  produces?: string;
  access?: RouteAccess;
  /** Refusals it may answer besides 400, 401, 404 and 500: each status, and why. */
  refusals?: Readonly<Record<string, string>>;
  handle(request: ControlRequest): ControlResponse | Promise<ControlResponse>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request the control API refuses with a 4xx `status` (code `INVALID_REQUEST`) before any
 * route runs (a body too large, or not JSON); it answers `{error, problems}` as every
 * refusal does.
 */
export function requestError(
  status: number,
  message: string,
  problems: readonly Problem[] = [],
): MockIstiodError<'INVALID_REQUEST'> {
  return new MockIstiodError('INVALID_REQUEST', message, { details: { status }, problems });
}

export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | { allowed: Method[] } | undefined {
  const allowed: Method[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { allowed } : undefined;
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  const rest = want.at(-1)?.startsWith('*') ? want.length - 1 : undefined;
  if (rest !== undefined) return matchRest(want, got, rest);
  return matchSegments(want, got);
}

/** A pattern ending in `*name`: the segments before it, and the rest of the path as `name`. */
function matchRest(
  want: string[],
  got: string[],
  rest: number,
): Record<string, string> | undefined {
  if (got.length < want.length) return undefined;
  const params = matchSegments(want.slice(0, rest), got.slice(0, rest));
  if (!params) return undefined;
  params[(want[rest] ?? '*').slice(1)] = got.slice(rest).map(decodeSegment).join('/');
  return params;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchSegments(want: string[], got: string[]): Record<string, string> | undefined {
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeSegment(actual);
    else if (segment !== actual) return undefined;
  }
  return params;
}

/** Reads a JSON body, refusing more than MAX_BODY_BYTES or text that is not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw requestError(413, `request body is larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw requestError(400, `request body is not valid JSON: ${reason}`);
  }
}
