/**
 * A real headless Chromium against the control port (docs/security.md#web-pages-and-the-control-api):
 * a page on another origin can neither change nor read anything, a page after DNS rebinding
 * cannot either, and the live page, served by the mock itself, still works. Chromium's own
 * headers are the ones checked (Origin, Sec-Fetch-Site, Host), not the test's.
 *
 * The other origins are a second local HTTP server, reached as http://localhost:<port> (another
 * site than 127.0.0.1) and http://127.0.0.1:<port> (the same site, another origin). Rebinding
 * is Chromium resolving rebind.attacker.example to 127.0.0.1 (--host-resolver-rules), with the
 * attacker's page fulfilled at http://rebind.attacker.example:<the mock's port>/: what a page
 * has once its name points at the mock. Chromium is required (`npm run install-chromium`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { it, type Fixtures } from '../support/fixtures/test.js';
import { requireChromium } from '../support/harness/browser.js';

const REBIND = 'rebind.attacker.example';

let browser: Browser | undefined;
let attacker: Server | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
  attacker = undefined;
});

async function openBrowser(): Promise<Browser> {
  browser = await chromium.launch({
    executablePath: requireChromium(),
    args: [
      `--host-resolver-rules=MAP ${REBIND} 127.0.0.1`,
      // Chromium's own Local Network Access check would stop the rebound page before the
      // mock does (a fulfilled page counts as public); Firefox and Safari have none, so the
      // mock must hold by itself.
      '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights',
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ],
    timeout: 30_000,
  });
  return browser;
}

/** Every way a page can send to another origin without a preflight, and try to read back. */
function attackScript(target: string): string {
  return `
    window.results = (async () => {
      const out = {};
      const post = (path, body = '{}') => fetch('${target}' + path, { method: 'POST',
        mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
      await post('/control/withhold');
      await post('/control/faults');
      await post('/ui/admins', '{"address":"127.0.0.1:9"}');
      try {
        const res = await fetch('${target}/control/state');
        out.read = await res.text();
      } catch (err) { out.read = 'blocked: ' + err.name; }
      const frame = document.createElement('iframe');
      frame.name = 'sink';
      document.body.append(frame);
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = '${target}/control/down';
      form.target = 'sink';
      form.enctype = 'text/plain';
      const field = document.createElement('input');
      field.name = '{"a":"';
      field.value = '"}';
      form.append(field);
      document.body.append(form);
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve));
      form.submit();
      await loaded;
      await new Promise((resolve) => {
        const img = new Image();
        img.onload = img.onerror = resolve;
        img.src = '${target}/control/wait-for-ack?node=x&timeoutSeconds=1';
      });
      return out;
    })();`;
}

/** Serves the attacker's page (on 127.0.0.1, a free port), aiming at `target`. */
async function startAttacker(target: string): Promise<number> {
  const html = `<!doctype html><body><script>${attackScript(target)}</script></body>`;
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html);
  });
  await new Promise<void>((resolve) => attacker?.listen(0, '127.0.0.1', resolve));
  return (attacker.address() as AddressInfo).port;
}

/** A mock whose refusal lines are kept: what reached it from the browser, and why it refused. */
async function startLoggedMock(startMock: Fixtures['startMock']) {
  const refused: { url: string; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString('utf8')) as { url?: string; msg: string };
      if (line.msg.startsWith('control API: refused')) {
        refused.push({ url: new URL(line.url ?? '/', 'http://x').pathname, msg: line.msg });
      }
      done();
    },
  });
  const mock = await startMock({ logger: pino({ level: 'warn' }, sink) });
  return { mock, refused };
}

async function api(mock: TestMockIstiod, path: string): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${mock.addresses.control?.port}${path}`);
  return res.json();
}

async function expectUnchanged(mock: TestMockIstiod): Promise<void> {
  expect(await api(mock, '/control/state')).toMatchObject({ withheld: false, serving: true });
  expect(await api(mock, '/control/faults')).toMatchObject({ faults: [] });
  expect(await api(mock, '/ui/admins')).toMatchObject({ admins: [] });
}

describe('the control port in a real browser', () => {
  for (const pageHost of ['localhost', '127.0.0.1']) {
    it(`a page on http://${pageHost}:<another port> can neither change nor read the mock`, async ({
      startMock,
    }) => {
      const { mock, refused } = await startLoggedMock(startMock);
      const port = mock.addresses.control?.port ?? 0;
      const attackerPort = await startAttacker(`http://127.0.0.1:${port}`);
      const page = await (await openBrowser()).newPage();
      await page.goto(`http://${pageHost}:${attackerPort}/`);
      const results = await page.evaluate<{ read: string }>('window.results');
      expect(results.read).toBe('blocked: TypeError');
      await expectUnchanged(mock);
      // Every attempt reached the mock and was refused there, not only by the browser.
      expect(refused.map((line) => line.url)).toEqual([
        '/control/withhold',
        '/control/faults',
        '/ui/admins',
        '/control/state',
        '/control/down',
        '/control/wait-for-ack',
      ]);
      for (const line of refused) {
        expect(line.msg).toBe('control API: refused, a browser request from another origin');
      }
    });
  }

  it('a page after DNS rebinding reads nothing and changes nothing', async ({ mock }) => {
    const port = mock.addresses.control?.port ?? 0;
    const origin = `http://${REBIND}:${port}`;
    const page = await (await openBrowser()).newPage();
    // The attacker's own page, at the name that now resolves to the mock.
    await page.route(`${origin}/attack.html`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><p>hello</p>' }),
    );
    await page.goto(`${origin}/attack.html`);
    const answers = await page.evaluate(async () => {
      const call = async (path: string, init?: RequestInit) => {
        const res = await fetch(path, init);
        return { status: res.status, body: await res.text() };
      };
      const json = { 'content-type': 'application/json' };
      return {
        state: await call('/control/state'),
        withhold: await call('/control/withhold', { method: 'POST', body: '{}' }),
        cert: await call('/ca/certificates', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ namespace: 'istio-system', serviceAccount: 'istiod' }),
        }),
      };
    });
    for (const answer of Object.values(answers)) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatch(
        /"error":"Host \\"rebind\.attacker\.example:\d+\\" is not a name/,
      );
    }
    expect(answers.cert.body).not.toMatch(/PRIVATE KEY/);
    await expectUnchanged(mock);
  });

  it('the live page, served by the mock, still connects and calls the API', async ({ mock }) => {
    const port = mock.addresses.control?.port ?? 0;
    const page = await (await openBrowser()).newPage();
    await page.goto(`http://127.0.0.1:${port}/ui/`);
    await waitFor(
      async () => ((await api(mock, '/ui/clients')) as { clients: unknown[] }).clients.length > 0,
      { timeoutMs: 15_000, intervalMs: 100, description: 'the live page to open /ui/events' },
    );
    const status = await page.evaluate(async () => {
      const res = await fetch('/control/withhold', { method: 'POST', body: '{}' });
      return res.status;
    });
    expect(status).toBe(200);
    expect(await api(mock, '/control/state')).toMatchObject({ withheld: true });
  });
});
