/**
 * The control port survives a failed accept, as the xDS port does. The failure is simulated:
 * libuv absorbs EMFILE with a reserved descriptor (a child with `ulimit -n 120` and 200
 * connections to its control port never saw one reach JavaScript), so the test calls the
 * listening handle's `onconnection` with the error code, which is what libuv does when its
 * reserve is gone too. Nothing more real was found to provoke it.
 */
import type { Server } from 'node:net';
import { constants } from 'node:os';
import pino from 'pino';
import { expect } from 'vitest';
import { createControlServer } from '../../src/control/control-server.js';
import type { Route } from '../../src/control/router.js';
import { it } from '../support/fixtures/test.js';

interface ListeningHandle {
  onconnection(err: number): void;
}

/** The net.Server listening on `port` in this process. */
function serverOn(port: number): Server {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  const found = handles.find((h): h is Server => {
    const address = (h as Partial<Server>).address?.();
    return typeof address === 'object' && address !== null && address.port === port;
  });
  if (!found) throw new Error(`no server listening on ${port} in this process`);
  return found;
}

it('a failed accept on the control port is heard (logged), and the port keeps serving', async ({
  mock,
}) => {
  const port = mock.addresses.control?.port ?? 0;
  const handle = (serverOn(port) as unknown as { _handle: ListeningHandle })._handle;
  expect(() => handle.onconnection(-constants.errno.EMFILE)).not.toThrow();
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(health.status).toBe(200);
});

it('a route that throws as it takes the response over ends that request with 500, not the process', async () => {
  const route: Route = {
    method: 'GET',
    path: '/boom',
    summary: 'throws as it takes the response over',
    access: 'public',
    handle: () => ({
      status: 200,
      body: null,
      takeOver: () => {
        throw new Error('taken over badly');
      },
    }),
  };
  const server = createControlServer([route], pino({ level: 'silent' }));
  const port = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    const boom = await fetch(`http://127.0.0.1:${port}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toMatchObject({ error: 'internal error; see the mock-istiod log' });
  } finally {
    await server.close();
  }
});
