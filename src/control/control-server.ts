/**
 * The HTTP control API on istiod's monitoring port (15014): JSON in, JSON out. Unknown
 * paths answer 404 with the list of endpoints; a known path with the wrong method answers
 * 405 naming the allowed ones; a bad body answers 400 saying what is wrong.
 *
 * Before any route runs, a request passes the browser checks (a page on another origin, a
 * DNS-rebinding `Host`: 403) and the token (401): request-gate.ts.
 *
 * Requests that change something (every method but GET) run one at a time, in the order
 * their bodies arrived, so that one never interleaves with another (a reset half done when a
 * fault is added). Each answer carries `x-mock-istiod-revision`: for a change, its place in
 * that order (from 1); for a read, the number of changes done before it was answered.
 *
 * Connections (docs/api.md#connections): an idle keep-alive connection is kept for
 * KEEP_ALIVE_TIMEOUT_MS, longer than the idle timeouts of common clients (Go's
 * `http.Transport` closes its own after 90 s), so that a client never reuses a connection in
 * the instant the server closes it (Node's default of 5 s made a Go client see `EOF` on a
 * `PUT` it would not retry). On close, answers still being written say `Connection: close`,
 * idle connections end at once, and the rest end when their answer is out or at the latest
 * after CLOSE_GRACE_MS.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { isMockIstiodError, MockIstiodError } from '../util/errors.js';
import type { Endpoint } from '../core/endpoint.js';
import { redactedUrl } from './auth.js';
import { answerClientError } from './client-error.js';
import { clientGoneSignal } from './client-gone.js';
import { gateRequest } from './request-gate.js';
import { errorResponse } from './responses.js';
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

/** How long an idle keep-alive connection stays open: beyond a client's own idle timeout. */
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;
/** How long a request's headers may take to arrive (Node requires it to exceed the above). */
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 5_000;
/** How long a whole request (headers and body) may take to arrive. */
export const REQUEST_TIMEOUT_MS = 300_000;
/** How long `close()` lets answers being written finish before it ends their connections. */
export const CLOSE_GRACE_MS = 2_000;

/** The answer header naming the change order (see the comment at the top). */
export const REVISION_HEADER = 'x-mock-istiod-revision';

function send(
  res: ServerResponse,
  response: ControlResponse,
  pretty: boolean,
  revision?: number,
): void {
  const { body, contentType } = response;
  const text =
    contentType && (typeof body === 'string' || Buffer.isBuffer(body))
      ? body
      : JSON.stringify(body, null, pretty ? 2 : undefined) + '\n';
  res.writeHead(response.status, {
    ...response.headers,
    'content-type': contentType ?? 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(revision === undefined ? {} : { [REVISION_HEADER]: String(revision) }),
  });
  res.end(text);
}

/** Runs changes one at a time and numbers them; reads run at once. */
export class ChangeQueue {
  private tail: Promise<unknown> = Promise.resolve();
  /** Changes done so far. */
  revision = 0;

  run<T>(change: () => Promise<T>): Promise<{ value: T; revision: number }> {
    const done = this.tail.then(async () => {
      try {
        return { value: await change(), revision: ++this.revision };
      } catch (err) {
        this.revision += 1;
        throw err;
      }
    });
    this.tail = done.catch(() => undefined);
    return done;
  }
}

/** Who may call what the request names (an unknown path needs the token, as before). */
function accessOf(routes: readonly Route[], method: string, path: string): RouteAccess {
  const match = matchRoute(routes, method, path);
  return match && 'route' in match ? (match.route.access ?? 'token') : 'token';
}

export async function handle(
  routes: readonly Route[],
  req: IncomingMessage,
  queue?: ChangeQueue,
  signal?: AbortSignal,
): Promise<ControlResponse & { revision?: number }> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const match = matchRoute(routes, method, url.pathname);
  if (!match) {
    req.resume();
    const endpoints = routes.map((r) => `${r.method} ${r.path} — ${r.summary}`);
    return errorResponse(404, `no such endpoint: ${method} ${url.pathname}`, { endpoints });
  }
  if ('allowed' in match) {
    req.resume();
    const allowed = match.allowed.join(', ');
    return errorResponse(405, `${method} is not allowed on ${url.pathname}; use ${allowed}`);
  }
  try {
    const body = await readJsonBody(req);
    const request = {
      method: method as Method,
      path: url.pathname,
      query: url.searchParams,
      params: match.params,
      body,
      ...(signal ? { signal } : {}),
    };
    if (!queue) return await match.route.handle(request);
    if (method === 'GET')
      return { ...(await match.route.handle(request)), revision: queue.revision };
    const { value, revision } = await queue.run(async () => match.route.handle(request));
    return { ...value, revision };
  } catch (err) {
    if (isMockIstiodError(err, 'INVALID_REQUEST')) {
      return errorResponse(err.details.status, err.message, { problems: err.problems });
    }
    throw err;
  }
}

export interface ControlServerOptions {
  /** Required as `Authorization: Bearer <token>` on every request when set. */
  token?: string;
  /**
   * Names a request's `Host` may carry besides loopback names, IP addresses and the address
   * the port listens on (`--control-allowed-host`; browser-guard.ts).
   */
  allowedHosts?: readonly string[];
}

export function createControlServer(
  routes: readonly Route[],
  log: Logger,
  options: ControlServerOptions = {},
): ControlServer {
  const queue = new ChangeQueue();
  /** The address it listens on, a name `Host` may carry (set by `listen`). */
  const boundHosts: string[] = [];
  let closing = false;
  /** Answers being worked out or written (not event streams, which never finish). */
  let inFlight = 0;
  let allAnswered: (() => void) | undefined;
  const answered = () => {
    inFlight -= 1;
    if (inFlight === 0) allAnswered?.();
  };
  const server = createServer(
    {
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
    },
    (req, res) => {
      // Closing: the client must not send its next request on this connection.
      if (closing) res.shouldKeepAlive = false;
      const url = new URL(req.url ?? '/', 'http://localhost');
      const pretty = url.searchParams.has('pretty');
      const logUrl = redactedUrl(req.url);
      const access = accessOf(routes, req.method ?? 'GET', url.pathname);
      const refused = gateRequest(req, url, access, {
        token: options.token,
        allowedHosts: [...boundHosts, ...(options.allowedHosts ?? [])],
      });
      if (refused) {
        req.resume();
        log.warn(
          {
            method: req.method,
            url: logUrl,
            peer: req.socket.remoteAddress,
            host: req.headers.host,
            origin: req.headers.origin,
          },
          refused.reason,
        );
        send(res, refused.response, pretty);
        return;
      }
      inFlight += 1;
      const failed = (err: unknown) => {
        log.error({ err, method: req.method, url: logUrl }, 'control API: unexpected error');
        // A response already begun (an event stream taken over) can only be cut.
        if (res.headersSent) res.destroy();
        else send(res, errorResponse(500, 'internal error; see the mock-istiod log'), pretty);
      };
      handle(routes, req, queue, clientGoneSignal(res))
        .then((response) => {
          log.debug({ method: req.method, url: logUrl, status: response.status }, 'control API');
          if (closing) res.shouldKeepAlive = false;
          if (response.takeOver) response.takeOver(req, res);
          else send(res, response, pretty, response.revision);
        })
        // Also what the handler above throws (a page's stream taken over): ends this request,
        // never the process (it would be an unhandled rejection).
        .catch(failed)
        .catch(() => res.destroy())
        .finally(answered);
    },
  );
  return {
    listen: ({ host, port }) =>
      new Promise((resolve, reject) => {
        boundHosts.splice(0, boundHosts.length, host);
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
          // Once listening, an error is one accept that failed (EMFILE when the process is out
          // of file descriptors and libuv's reserve could not absorb it): that client is
          // refused and the port keeps serving, as the xDS port does. Unheard, the 'error'
          // event would end the process.
          server.on('error', (err: NodeJS.ErrnoException) =>
            log.warn({ err }, 'control API: a connection could not be accepted; still serving'),
          );
          server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
            log.debug({ code: err.code }, 'control API: a request HTTP could not parse');
            answerClientError(err, socket);
          });
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) return resolve();
        closing = true;
        // Idle connections end at once; the rest once every answer being worked out is
        // written (each says `Connection: close`), or after a grace; event streams with them.
        const endAll = () => {
          clearTimeout(grace);
          allAnswered = undefined;
          server.closeAllConnections();
        };
        const grace = setTimeout(endAll, CLOSE_GRACE_MS);
        server.close(() => resolve());
        server.closeIdleConnections();
        if (inFlight === 0) endAll();
        else allAnswered = () => setImmediate(endAll);
      }),
  };
}
