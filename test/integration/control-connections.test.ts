/**
 * What the control port does with connections (docs/api.md#connections): idle keep-alive
 * connections are kept longer than Go's 90 s and said to be (`Keep-Alive: timeout=120`); on
 * close, an idle connection does not hold the mock up, and an answer written while closing
 * says `Connection: close`.
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { describe, expect } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { it } from '../support/fixtures/test.js';

function get(
  port: number,
  path: string,
  agent: Agent,
): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ res, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('control port connections', () => {
  it('keeps idle connections 120 s, and says so', async ({ mock }) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const port = mock.addresses.control!.port;
      const first = await get(port, '/control/state', agent);
      expect(first.res.headers['connection']).toBe('keep-alive');
      expect(first.res.headers['keep-alive']).toBe('timeout=120');
      const second = await get(port, '/healthz', agent);
      // The same socket served both.
      expect(second.res.socket).toBe(first.res.socket);
    } finally {
      agent.destroy();
    }
  });

  it('closes promptly with an idle connection open, and answers in flight with Connection: close', async ({
    startMock,
  }) => {
    const mock = await startMock();
    const port = mock.addresses.control!.port;
    const agent = new Agent({ keepAlive: true });
    const idle = new Agent({ keepAlive: true });
    try {
      await get(port, '/ready', idle); // leaves an idle keep-alive connection
      const idleSockets = () => Object.values(idle.freeSockets).flat().length;
      expect(idleSockets()).toBe(1);
      const listening = mock.events.listenerCount('snapshot');
      const waiting = get(port, '/control/wait-for-ack?type=LDS&timeout=30s', agent);
      // The wait is on the server once it listens for new versions.
      await waitFor(() => mock.events.listenerCount('snapshot') > listening, {
        description: 'the wait listening',
      });
      const started = Date.now();
      await mock.close();
      expect(Date.now() - started).toBeLessThan(1_500);
      const { res, body } = await waiting;
      expect(res.statusCode).toBe(503);
      // The server ended the idle connection too.
      await waitFor(() => idleSockets() === 0, { description: 'the idle connection closed' });
      expect(res.headers['connection']).toBe('close');
      expect(JSON.parse(body)).toMatchObject({
        error: expect.stringMatching(/^mock istiod closed while waiting/) as string,
      });
    } finally {
      agent.destroy();
      idle.destroy();
    }
  });
});
