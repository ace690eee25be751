/**
 * The HTTP control API on istiod's monitoring port (15014): JSON in, JSON out. A minimal
 * start: release / withhold the responses and read the state; later issues add faults,
 * resources and istiod's debug endpoints.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { MockIstiodError } from '../server/errors.js';
import type { Endpoint } from '../server/options.js';
import type { StreamView } from '../server/events.js';

/** What the control API needs from the server (kept narrow so it is easy to test). */
export interface Controllable {
  release(): boolean;
  withhold(): void;
  readonly withheld: boolean;
  streams(): StreamView[];
}

export interface ControlServer {
  listen(endpoint: Endpoint): Promise<number>;
  close(): Promise<void>;
}

type Handler = (target: Controllable) => { status: number; body: unknown };

const ROUTES: Record<string, Partial<Record<string, Handler>>> = {
  '/control/release': {
    POST: (t) => ({ status: 200, body: { released: t.release(), withheld: t.withheld } }),
  },
  '/control/withhold': {
    POST: (t) => {
      t.withhold();
      return { status: 200, body: { withheld: t.withheld } };
    },
  },
  '/control/state': {
    GET: (t) => ({
      status: 200,
      body: { withheld: t.withheld, streams: t.streams().map(describeStream) },
    }),
  },
  '/ready': { GET: () => ({ status: 200, body: { ready: true } }) },
};

function describeStream(stream: StreamView) {
  return {
    connectionId: stream.connectionId,
    nodeId: stream.proxy.nodeId,
    peer: stream.peer,
    connectedAt: stream.connectedAt.toISOString(),
    types: [...stream.types.values()].map((t) => ({
      typeUrl: t.typeUrl,
      sent: t.sent?.version,
      acked: t.acked?.version,
      nack: t.nack ? { version: t.nack.version, message: t.nack.message } : undefined,
    })),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2) + '\n';
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function route(
  target: Controllable,
  req: IncomingMessage,
): { status: number; body: unknown } {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const methods = ROUTES[path];
  if (!methods)
    return {
      status: 404,
      body: { error: `no such endpoint: ${path}`, endpoints: Object.keys(ROUTES) },
    };
  const handler = methods[req.method ?? 'GET'];
  if (!handler) {
    const allowed = Object.keys(methods).join(', ');
    return {
      status: 405,
      body: { error: `${req.method ?? ''} is not allowed on ${path}; use ${allowed}` },
    };
  }
  return handler(target);
}

export function createControlServer(target: Controllable, log: Logger): ControlServer {
  const server = createServer((req, res) => {
    req.resume();
    const { status, body } = route(target, req);
    log.info({ method: req.method, url: req.url, status }, 'control API request');
    send(res, status, body);
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
              [],
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
