/**
 * The HTTP control API on istiod's monitoring port (15014): JSON in, JSON out. Unknown
 * paths answer 404 with the list of endpoints; a known path with the wrong method answers
 * 405 naming the allowed ones; a bad body answers 400 saying what is wrong.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { isMockIstiodError, MockIstiodError } from '../util/errors.js';
import type { Endpoint } from '../core/endpoint.js';
import { authorized, redactedUrl } from './auth.js';
import {
  matchRoute,
  readJsonBody,
  type ControlResponse,
  type Method,
  type Route,
  type RouteAccess,
} from './router.js';

export interface ControlServer {
  listen(endpoint: Endpoint): Promise<number>;
  close(): Promise<void>;
}

function send(res: ServerResponse, response: ControlResponse, pretty: boolean): void {
  const { body, contentType } = response;
  const text =
    contentType && (typeof body === 'string' || Buffer.isBuffer(body))
      ? body
      : JSON.stringify(body, null, pretty ? 2 : undefined) + '\n';
  res.writeHead(response.status, {
    ...response.headers,
    'content-type': contentType ?? 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Who may call what the request names (an unknown path needs the token, as before). */
function accessOf(routes: readonly Route[], method: string, path: string): RouteAccess {
  const match = matchRoute(routes, method, path);
  return match && 'route' in match ? (match.route.access ?? 'token') : 'token';
}

export async function handle(
  routes: readonly Route[],
  req: IncomingMessage,
): Promise<ControlResponse> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const match = matchRoute(routes, method, url.pathname);
  if (!match) {
    req.resume();
    const endpoints = routes.map((r) => `${r.method} ${r.path} — ${r.summary}`);
    return {
      status: 404,
      body: { error: `no such endpoint: ${method} ${url.pathname}`, endpoints },
    };
  }
  if ('allowed' in match) {
    req.resume();
    const allowed = match.allowed.join(', ');
    return {
      status: 405,
      body: { error: `${method} is not allowed on ${url.pathname}; use ${allowed}` },
    };
  }
  try {
    const body = await readJsonBody(req);
    return await match.route.handle({
      method: method as Method,
      path: url.pathname,
      query: url.searchParams,
      params: match.params,
      body,
    });
  } catch (err) {
    if (isMockIstiodError(err, 'INVALID_REQUEST')) {
      const details = err.problems.length > 0 ? err.problems : undefined;
      return { status: err.details.status, body: { error: err.message, details } };
    }
    throw err;
  }
}

export interface ControlServerOptions {
  /** Required as `Authorization: Bearer <token>` on every request when set. */
  token?: string;
}

export function createControlServer(
  routes: readonly Route[],
  log: Logger,
  options: ControlServerOptions = {},
): ControlServer {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pretty = url.searchParams.has('pretty');
    const logUrl = redactedUrl(req.url);
    const access = accessOf(routes, req.method ?? 'GET', url.pathname);
    const queryToken = access === 'token-or-query' ? url.searchParams.get('token') : undefined;
    if (access !== 'public' && !authorized(req, options.token, queryToken)) {
      req.resume();
      log.warn(
        { method: req.method, url: logUrl, peer: req.socket.remoteAddress },
        'control API: refused, no or wrong token',
      );
      res.setHeader('www-authenticate', 'Bearer');
      const how =
        access === 'token-or-query'
          ? '"Authorization: Bearer <token>" or ?token=<token>'
          : '"Authorization: Bearer <token>"';
      send(res, { status: 401, body: { error: `this control API needs ${how}` } }, pretty);
      return;
    }
    handle(routes, req).then(
      (response) => {
        log.debug({ method: req.method, url: logUrl, status: response.status }, 'control API');
        if (response.takeOver) response.takeOver(req, res);
        else send(res, response, pretty);
      },
      (err: unknown) => {
        log.error({ err, method: req.method, url: logUrl }, 'control API: unexpected error');
        send(
          res,
          { status: 500, body: { error: 'internal error; see the mock-istiod log' } },
          pretty,
        );
      },
    );
  });
  return {
    listen: ({ host, port }) =>
      new Promise((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => {
          const hint =
            err.code === 'EADDRINUSE'
              ? ': the port is in use; choose another with --control-port'
              : '';
          reject(
            new MockIstiodError(
              'LISTEN_FAILED',
              `cannot listen for the control API on ${host}:${port} (${err.code ?? err.message})${hint}`,
              { cause: err },
            ),
          );
        });
        server.listen(port, host, () => {
          server.removeAllListeners('error');
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
