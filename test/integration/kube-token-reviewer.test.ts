/**
 * The token reviewer's HTTP against a stand-in API server on loopback (HTTPS with a CA of its
 * own): what it posts and where (a server's path prefix kept), the mock's bearer token, and
 * that every way the exchange can go wrong ends the review with a reason instead of hanging it
 * (a Status answer, an answer cut off in the middle, no answer in time).
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKubeTokenReviewer } from '../../src/ca/kube-token-review.js';
import { createRootCa, issueServingCertificate } from '../../src/tls/pki.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An HTTPS server on 127.0.0.1:0; returns its address and the CA that trusts it. */
async function apiServer(handler: Handler): Promise<{ server: string; ca: Buffer }> {
  const root = await createRootCa('test.local');
  const serving = await issueServingCertificate(root, ['127.0.0.1']);
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, body, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server: `https://127.0.0.1:${port}`, ca: Buffer.from(root.certPem) };
}

describe('createKubeTokenReviewer over HTTPS', () => {
  it("posts a TokenReview with the CA's audiences under the server's path, with the mock's token", async () => {
    let seen: { url?: string; auth?: string; body?: unknown } = {};
    const api = await apiServer((req, body, res) => {
      seen = { url: req.url, auth: req.headers.authorization, body: JSON.parse(body) };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          status: {
            authenticated: true,
            user: {
              username: 'system:serviceaccount:shop:orders',
              groups: ['system:serviceaccounts'],
            },
          },
        }),
      );
    });
    const review = createKubeTokenReviewer(
      { ...api, server: `${api.server}/k8s/clusters/c-1`, token: () => 'mine', origin: 'test' },
      ['istio-ca'],
    );
    expect(await review('pods-token')).toEqual({
      ok: true,
      identity: { namespace: 'shop', serviceAccount: 'orders' },
    });
    expect(seen).toEqual({
      url: '/k8s/clusters/c-1/apis/authentication.k8s.io/v1/tokenreviews',
      auth: 'Bearer mine',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token: 'pods-token', audiences: ['istio-ca'] },
      },
    });
  });

  it("a Status answer: its message is the reason, as client-go's error", async () => {
    const api = await apiServer((_req, _body, res) => {
      res.statusCode = 401;
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', message: 'Unauthorized' }));
    });
    const review = createKubeTokenReviewer({ ...api, token: () => 'x', origin: 'test' }, ['a']);
    expect(await review('t')).toEqual({ ok: false, reason: 'Unauthorized' });
  });

  it('an answer cut off in the middle of its body: refused, not left hanging', async () => {
    const api = await apiServer((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"status":', () => {
        res.socket?.destroy();
      });
    });
    const review = createKubeTokenReviewer({ ...api, token: () => 'x', origin: 'test' }, ['a']);
    expect(await review('t')).toEqual({
      ok: false,
      reason: `the TokenReview at ${api.server} failed: aborted`,
    });
  });

  it('no answer in time: refused, naming the timeout', async () => {
    const api = await apiServer(() => undefined);
    const review = createKubeTokenReviewer(
      { ...api, token: () => 'x', origin: 'test' },
      ['a'],
      200,
    );
    expect(await review('t')).toEqual({
      ok: false,
      reason: `the TokenReview at ${api.server} failed: no answer within 200 ms`,
    });
  });
});
