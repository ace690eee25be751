/**
 * HTTP headers a client or a web page chooses, on the control port: `Host` (DNS rebinding),
 * `Origin` (a page on another site), `Content-Type` (a "simple" cross-site POST), sizes and
 * counts, framing no client should send, and connections that never finish their request.
 * What a browser may not do must change nothing and read nothing; what `curl` does must keep
 * working. Then the five checks of verify.ts.
 */
import type { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIB, request } from './support/attack.js';
import { holdOpen, rawRequest, requestText } from './support/raw-http.js';
import { useTarget, type Target } from './support/target.js';
import { verifyTarget } from './support/verify.js';

const attacked = useTarget();
let target: Target;
beforeAll(() => {
  target = attacked();
});
let self: string;

beforeAll(() => {
  self = new URL(target.controlUrl).host;
});

const send = (method: string, path: string, headers: Record<string, string>, body = '') => {
  target.inputs += 1;
  return rawRequest(target.controlUrl, requestText(method, path, headers, body));
};

const withheld = async () =>
  (JSON.parse((await request(`${target.controlUrl}/control/state`)).body) as { withheld: boolean })
    .withheld;

describe('Host, Origin and Content-Type', () => {
  it('a rebinding Host is refused: no state changed, nothing read, no certificate', async () => {
    for (const host of [
      'rebind.attacker.example',
      'rebind.attacker.example:15014',
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      `${'h'.repeat(10_000)}`,
      '',
      '[::1]x',
    ]) {
      for (const [method, path, body] of [
        ['POST', '/control/withhold', '{}'],
        ['GET', '/control/state', ''],
        ['POST', '/ca/certificates', '{"namespace":"istio-system","serviceAccount":"istiod"}'],
        ['POST', '/ca/token', '{"namespace":"istio-system","serviceAccount":"istiod"}'],
        ['GET', '/debug/journal', ''],
      ] as const) {
        const answer = await send(method, path, { Host: host }, body);
        expect(
          answer.status,
          `${method} ${path} with Host ${host.slice(0, 40)}`,
        ).toBeGreaterThanOrEqual(400);
        expect(answer.body).not.toContain('PRIVATE KEY');
        expect(answer.body).not.toContain('"withheld"');
      }
    }
    expect(await withheld()).toBe(false);
  });

  it('a page on another origin is refused, whatever its Content-Type', async () => {
    for (const origin of [
      'https://attacker.example',
      'null',
      'http://localhost.attacker.example',
      `http://127.0.0.1:1`,
      'file://',
    ]) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json',
      ]) {
        for (const path of [
          '/control/withhold',
          '/control/down',
          '/ui/admins',
          '/control/faults',
          '/control/push',
        ]) {
          const answer = await send(
            'POST',
            path,
            { Host: self, Origin: origin, 'Content-Type': type },
            '{"address":"127.0.0.1:1"}',
          );
          expect(answer.status, `${path} from ${origin} as ${type}`).toBe(403);
          expect(answer.body).toContain('error');
        }
      }
      const read = await send('GET', '/control/state', { Host: self, Origin: origin });
      expect(read.status).toBe(403);
    }
    expect(await withheld()).toBe(false);
    const state = JSON.parse((await request(`${target.controlUrl}/control/state`)).body) as {
      serving: boolean;
    };
    expect(state.serving).toBe(true);
  });

  it('curl as the docs show it still works: no Origin, and no Content-Type or a form one', async () => {
    const held = await send(
      'POST',
      '/control/withhold',
      { Host: self, 'Content-Type': 'application/x-www-form-urlencoded' },
      '{}',
    );
    expect(held.status, held.body).toBe(200);
    expect(await withheld()).toBe(true);
    const released = await send('POST', '/control/release', { Host: self }, '{}');
    expect(released.status, released.body).toBe(200);
    expect(await withheld()).toBe(false);
    const same = await send('GET', '/control/state', { Host: self, Origin: `http://${self}` });
    expect(same.status).toBe(200);
  });
});

describe('sizes, counts and framing', () => {
  it('huge and numerous headers, a body over the limit, and framing that contradicts itself', async () => {
    const big = await send('GET', '/control/state', { Host: self, 'X-Big': 'b'.repeat(100_000) });
    expect(big.status).toBe(431);
    expect(big.body).toContain('the request headers are too large');
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`X-H${i}`, 'v']));
    const numerous = await send('GET', '/control/state', { Host: self, ...many });
    expect([200, 431]).toContain(numerous.status);
    const over = await send(
      'PUT',
      '/control/resources',
      { Host: self },
      `{"resources":"${'x'.repeat(MIB)}"}`,
    );
    expect(over.status).toBe(413);
    const smuggled = await send(
      'POST',
      '/control/withhold',
      { Host: self, 'Content-Length': '2', 'Transfer-Encoding': 'chunked' },
      '0\r\n\r\nPOST /control/down HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(smuggled.status).toBe(400);
    const chunks = await send(
      'POST',
      '/control/push',
      { Host: self, 'Transfer-Encoding': 'chunked' },
      'zz\r\nnot hex\r\n',
    );
    expect(chunks.status).toBe(400);
    for (const line of [
      'GET /\u0000 HTTP/1.1',
      'GET ' + '/x'.repeat(50_000) + ' HTTP/1.1',
      'BREW /control/state HTTP/1.1',
      'GET /control/state HTTP/9.9',
    ]) {
      target.inputs += 1;
      const answer = await rawRequest(
        target.controlUrl,
        `${line}\r\nHost: ${self}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status === 0 || answer.status >= 400, line.slice(0, 40)).toBe(true);
    }
    const state = JSON.parse((await request(`${target.controlUrl}/control/state`)).body) as {
      serving: boolean;
      withheld: boolean;
    };
    expect(state).toMatchObject({ serving: true, withheld: false });
  });

  it('200 connections that never finish their request leave the port answering', async () => {
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        target.inputs += 1;
        sockets.push(
          await holdOpen(
            target.controlUrl,
            `POST /control/withhold HTTP/1.1\r\nHost: ${self}\r\nContent-Length: 100\r\n\r\n{`,
          ),
        );
      }
      const started = Date.now();
      const answer = await request(`${target.controlUrl}/control/state`);
      expect(answer.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    expect(await withheld()).toBe(false);
  });

  it('lives, never stalls, stays small, serves the last good set, loses no journal line', async () => {
    await verifyTarget('http-headers', target);
  });
});
