/**
 * Browser safety on the control port (docs/security.md#web-pages-and-the-control-api), with
 * raw HTTP so that every header is the test's own: `Host` (DNS rebinding), `Origin` and
 * `Sec-Fetch-Site` (a page on another origin), and what must keep working (curl's form
 * type, probes by pod IP, requests with the token under any name). Every refusal is checked
 * to have changed nothing, through the API.
 */
import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { createMockIstiod } from '../../src/app/mock-istiod.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { it, test } from '../support/fixtures/test.js';
import { startServedProcess } from '../support/harness/served-process.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One request to the mock's control port with exactly these headers. */
function send(
  mock: TestMockIstiod | number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const port = typeof mock === 'number' ? mock : (mock.addresses.control?.port ?? 0);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers, setHost: false },
      (res) => {
        // An event stream never ends: its status is the answer.
        if (res.headers['content-type']?.startsWith('text/event-stream')) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, body: {} });
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const parsed = text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {};
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The mock's own Host header, as curl or a browser on 127.0.0.1 sends it. */
const own = (mock: TestMockIstiod) => `127.0.0.1:${mock.addresses.control?.port}`;

async function withheld(mock: TestMockIstiod, headers: Record<string, string> = {}) {
  const state = await send(mock, 'GET', '/control/state', { host: own(mock), ...headers });
  expect(state.status).toBe(200);
  return state.body.withheld;
}

describe('control API: Host (DNS rebinding)', () => {
  it('refuses a Host that is not its name with 403, and changes nothing', async ({ mock }) => {
    const rebound = { host: 'rebind.attacker.example:15014', 'content-type': 'text/plain' };
    const withhold = await send(mock, 'POST', '/control/withhold', rebound, '{}');
    expect(withhold.status).toBe(403);
    expect(withhold.body).toEqual({
      error: expect.stringMatching(
        /^Host "rebind\.attacker\.example:15014" is not a name of this control API: .*--control-allowed-host/,
      ) as unknown,
      problems: [],
    });
    expect(await withheld(mock)).toBe(false);
    const cert = await send(
      mock,
      'POST',
      '/ca/certificates',
      rebound,
      JSON.stringify({ namespace: 'istio-system', serviceAccount: 'istiod' }),
    );
    expect(cert.status).toBe(403);
    expect(cert.body).not.toHaveProperty('privateKey');
    const read = await send(mock, 'GET', '/control/state', { host: 'rebind.attacker.example' });
    expect(read.status).toBe(403);
    expect(read.body).not.toHaveProperty('withheld');
  });

  it('answers loopback names and IP addresses (a pod IP)', async ({ mock }) => {
    const port = mock.addresses.control?.port ?? 0;
    for (const host of [
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `page.localhost:${port}`,
      `127.0.0.1:${port}`,
      `127.1.2.3:${port}`,
      `[::1]:${port}`,
      '10.244.0.7:15014',
      '[fd00::7]:15014',
    ]) {
      const answer = await send(mock, 'GET', '/control/state', { host });
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
  });

  it('refuses lookalikes of loopback names', async ({ mock }) => {
    for (const host of ['localhost.attacker.example', 'evil-localhost', '127.0.0.1.nip.io', '']) {
      const answer = await send(mock, 'GET', '/control/state', { host });
      expect({ host, status: answer.status }).toEqual({ host, status: 403 });
    }
  });

  describe('with --control-allowed-host', () => {
    test.override({ mockOptions: { controlAllowedHosts: ['mock.example', '.corp.example'] } });
    it('answers the names given, and names under a leading-dot one', async ({ mock }) => {
      const status = async (host: string) =>
        (await send(mock, 'GET', '/control/state', { host })).status;
      expect(await status('mock.example:15014')).toBe(200);
      expect(await status('MOCK.example')).toBe(200);
      expect(await status('corp.example')).toBe(200);
      expect(await status('a.b.corp.example:80')).toBe(200);
      expect(await status('evilcorp.example')).toBe(403);
      expect(await status('mock.example.attacker.example')).toBe(403);
    });
  });

  it('takes the names from serve --control-allowed-host', async () => {
    const served = await startServedProcess(['--control-allowed-host', 'mock.example']);
    try {
      const port = Number(new URL(served.controlUrl).port);
      expect((await send(port, 'GET', '/control/state', { host: 'mock.example' })).status).toBe(
        200,
      );
      expect((await send(port, 'GET', '/control/state', { host: 'other.example' })).status).toBe(
        403,
      );
    } finally {
      await served.stop();
    }
  });

  it('refuses an allowed name that is not a host name, naming the option', () => {
    expect(() => createMockIstiod({ controlAllowedHosts: ['http://mock.example:15014'] })).toThrow(
      /controlAllowedHosts\[0\]: expected a host name without scheme or port/,
    );
  });

  describe('in a cluster: bound to 0.0.0.0 with a token', () => {
    test.override({ mockOptions: { controlToken: 's3cret' } });
    it('answers any Host with the token, probes by pod IP without it', async ({ mock }) => {
      const service = 'istiod.istio-system.svc:15014';
      const bearer = { authorization: 'Bearer s3cret' };
      const viaService = await send(mock, 'GET', '/control/state', { host: service, ...bearer });
      expect(viaService.status).toBe(200);
      expect((await send(mock, 'GET', '/metrics', { host: service, ...bearer })).status).toBe(200);
      const events = await send(mock, 'GET', '/ui/events?token=s3cret', { host: service });
      expect(events.status).toBe(200);
      // Without the token, a name is refused before the token is asked for.
      expect((await send(mock, 'GET', '/control/state', { host: service })).status).toBe(403);
      expect((await send(mock, 'GET', '/healthz', { host: service })).status).toBe(403);
      // kubelet's probes name the pod's IP.
      for (const path of ['/healthz', '/ready']) {
        expect((await send(mock, 'GET', path, { host: '10.244.0.7:15014' })).status).toBe(200);
      }
      const noToken = await send(mock, 'GET', '/control/state', { host: '10.244.0.7:15014' });
      expect(noToken.status).toBe(401);
    });

    it("answers the probes and the page's files without the token, nothing else", async ({
      mock,
    }) => {
      const status = async (path: string) =>
        (await send(mock, 'GET', path, { host: own(mock) })).status;
      expect(await status('/healthz')).toBe(200);
      expect(await status('/ready')).toBe(200);
      expect(await status('/ui')).toBe(302);
      // The built page (200), or the line saying to build it (503): never a 401.
      expect([200, 503]).toContain(await status('/ui/'));
      for (const path of [
        '/ui/events',
        '/ui/clients',
        '/ui/admins',
        '/metrics',
        '/control/state',
      ]) {
        expect({ path, status: await status(path) }).toEqual({ path, status: 401 });
      }
    });
  });
});

describe('control API: Origin and Sec-Fetch-Site (a page on another origin)', () => {
  it('refuses a simple POST from another origin, or from an opaque origin, and changes nothing', async ({
    mock,
  }) => {
    for (const origin of [
      'http://evil.example',
      'null',
      `http://localhost:${mock.addresses.control?.port}`,
      `https://127.0.0.1:${mock.addresses.control?.port}`,
      'not a url',
    ]) {
      const answer = await send(
        mock,
        'POST',
        '/control/withhold',
        { host: own(mock), origin, 'content-type': 'text/plain' },
        '{}',
      );
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
      expect(answer.body.error).toMatch(/^cross-origin request refused: Origin .* is not this/);
    }
    expect(await withheld(mock)).toBe(false);
  });

  it('refuses the token-carrying request of another origin too', async ({ startMock }) => {
    const mock = await startMock({ controlToken: 's3cret' });
    const answer = await send(
      mock,
      'POST',
      '/control/withhold',
      { host: own(mock), origin: 'http://evil.example', authorization: 'Bearer s3cret' },
      '{}',
    );
    expect(answer.status).toBe(403);
    expect(await withheld(mock, { authorization: 'Bearer s3cret' })).toBe(false);
  });

  it('answers its own page: Origin equal to http:// and the Host', async ({ mock }) => {
    const origin = `http://${own(mock)}`;
    const answer = await send(mock, 'POST', '/control/withhold', { host: own(mock), origin }, '{}');
    expect(answer.status).toBe(200);
    expect(await withheld(mock)).toBe(true);
  });

  it('refuses a cross-site or same-site subresource, follows a navigation', async ({ mock }) => {
    for (const site of ['cross-site', 'same-site']) {
      const img = await send(mock, 'GET', '/control/state', {
        host: own(mock),
        'sec-fetch-site': site,
        'sec-fetch-mode': 'no-cors',
      });
      expect({ site, status: img.status }).toEqual({ site, status: 403 });
      expect(img.body.error).toMatch(/^cross-site request refused \(Sec-Fetch-Site: /);
      const post = await send(
        mock,
        'POST',
        '/control/withhold',
        { host: own(mock), 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' },
        '{}',
      );
      expect({ site, status: post.status }).toEqual({ site, status: 403 });
    }
    const link = await send(mock, 'GET', '/ui', {
      host: own(mock),
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
    });
    expect(link.status).toBe(302);
    expect(await withheld(mock)).toBe(false);
  });

  it("keeps curl -d working: curl's form type, no Origin", async ({ mock }) => {
    const answer = await send(
      mock,
      'POST',
      '/control/withhold',
      {
        host: own(mock),
        'user-agent': 'curl/8.5.0',
        accept: '*/*',
        'content-type': 'application/x-www-form-urlencoded',
      },
      '{}',
    );
    expect(answer.status).toBe(200);
    expect(await withheld(mock)).toBe(true);
  });
});
