/**
 * How an operation's input travels over HTTP, for both ends: `:name` segments of its path are
 * the fields of those names; a GET carries the other fields in its query string (read from
 * text: `?limit=5&kind=ack,nack`), every other method in a JSON body. The server reads a
 * request into input with `requestInput`; the client writes input into a request with
 * `requestFor`.
 */
import { validateFields, type FieldValues } from '../core/fields.js';
import { isObject } from '../util/guards.js';
import type { Result } from '../util/problems.js';
import type { Method, Operation } from './operation.js';

/** Query parameters every route takes that are not an operation's input. */
const RESERVED_QUERY = new Set(['pretty', 'token']);

function pathFields(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] ?? '');
}

/** A request as the server received it. */
export interface ReceivedRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** The operation's input from a request, validated: every problem with its field path. */
export function requestInput<I extends Operation>(
  op: I,
  request: ReceivedRequest,
): Result<FieldValues<I['input']>> {
  const fields: Record<string, unknown> = {};
  let raw: unknown = fields;
  if (op.method === 'GET') {
    for (const key of new Set(request.query.keys())) {
      if (RESERVED_QUERY.has(key)) continue;
      const values = request.query.getAll(key);
      fields[key] = values.length === 1 ? values[0] : values.join(',');
    }
  } else if (Array.isArray(request.body) && op.bodyField) {
    fields[op.bodyField] = request.body;
  } else if (request.body !== undefined) {
    raw = request.body;
  }
  const params = Object.entries(request.params);
  if (params.length > 0 && isObject(raw)) raw = { ...raw, ...Object.fromEntries(params) };
  return validateFields(op.input, raw, {
    fromText: op.method === 'GET',
    keepUnknown: op.keepUnknown === true,
  }) as Result<FieldValues<I['input']>>;
}

/** A request to send: the method, the path with its query, and the JSON body if any. */
export interface OutgoingRequest {
  method: Method;
  path: string;
  body?: unknown;
}

function queryValue(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** The request that runs `op` with `input` (fields as a caller writes them). */
export function requestFor(op: Operation, input: Record<string, unknown> = {}): OutgoingRequest {
  const inPath = pathFields(op.path);
  let path = op.path;
  for (const name of inPath) {
    const value = input[name];
    path = path.replace(`:${name}`, encodeURIComponent(typeof value === 'string' ? value : ''));
  }
  const rest = Object.entries(input).filter(([k, v]) => !inPath.includes(k) && v !== undefined);
  if (op.method === 'GET') {
    const query = new URLSearchParams(
      rest.map(([k, v]): [string, string] => [k, queryValue(v)]),
    ).toString();
    return { method: op.method, path: query ? `${path}?${query}` : path };
  }
  return rest.length > 0
    ? { method: op.method, path, body: Object.fromEntries(rest) }
    : { method: op.method, path };
}
