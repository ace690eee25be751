/**
 * A small router for the HTTP control API: exact paths (or `:param` segments), JSON bodies
 * with a size limit, JSON answers (pretty with `?pretty`) or text (for `/metrics`). Each
 * concern lives in its own routes file and is listed in routes.ts.
 */
import type { IncomingMessage } from 'node:http';
import { MockIstiodError } from '../util/errors.js';
import type { Problem } from '../util/problems.js';
import type { Schema } from './api-schemas.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ControlRequest {
  method: Method;
  path: string;
  query: URLSearchParams;
  /** `:name` segments of the route's path. */
  params: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
}

export interface ControlResponse {
  status: number;
  /** Serialised as JSON, unless `contentType` is given and `body` is a string. */
  body: unknown;
  contentType?: string;
}

export interface Route {
  method: Method;
  /** `/control/faults` or `/control/faults/:id`. */
  path: string;
  /** One line for `GET /` (the endpoint list). */
  summary: string;
  /** The JSON Schema of the body it takes, if any (for the OpenAPI document). */
  body?: Schema;
  /** The JSON Schema of its success answer (JSON unless said otherwise). */
  answer?: Schema;
  /** The status of its success answer, when not 200. */
  success?: 201;
  handle(request: ControlRequest): ControlResponse | Promise<ControlResponse>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request the control API refuses with a 4xx `status` (code `INVALID_REQUEST`); the
 * `problems`, if any, go into the answer as `details`.
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
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
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
