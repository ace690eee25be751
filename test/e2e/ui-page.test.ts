/**
 * The live page in a real headless Chromium, against the mock and a real Envoy run by the
 * agent (so READY is known): what a student sees at the four moments of the classroom story,
 * through the page's own buttons; and the README's own Envoy (`envoy-configs/sidecar-sotw.yaml`,
 * no agent), found by the page without an address typed in. Chromium is required (`npm run install-chromium`); the
 * test fails, naming it, when it is missing.
 *
 * With UPDATE_SCREENSHOTS=1 the four moments are written to docs/images/ (committed, shown in
 * docs/classroom.md); otherwise to a temporary folder.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect } from 'vitest';
import { startAgent, type Agent } from '../../src/envoy/agent.js';
import { makeLabResources } from '../../src/resources/lab.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { packageRoot } from '../../src/util/package-root.js';
import { freePorts } from '../../src/util/ports.js';
import { it, type Fixtures } from '../support/fixtures/test.js';
import { useBrowser } from '../support/harness/browser.js';
import { moveFixedPorts, type MovedBootstrap } from '../support/harness/fixed-ports-bootstrap.js';

const NACK_TEXT = "route: unknown cluster 'no-such-cluster'";

const shotsDir = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dirname, '../../docs/images')
  : mkdtempSync(join(tmpdir(), 'ui-page-shots-'));
mkdirSync(shotsDir, { recursive: true });
afterAll(() => {
  if (!process.env.UPDATE_SCREENSHOTS) rmSync(shotsDir, { recursive: true, force: true });
});

const browser = useBrowser();
// The agents (and their Envoys) stop here, before the fixtures close the mocks.
afterEach(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  agents = [];
});

let agents: Agent[] = [];

/** The mock serving the lab on free ports, withholding its first responses when asked. */
async function startLabMock(
  startMock: Fixtures['startMock'],
  withholdFirst: boolean,
): Promise<TestMockIstiod> {
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  return startMock({ withholdFirst, resources: makeLabResources({ inboundPort, outboundPort }) });
}

/**
 * A sidecar run by the agent, pointed at the mock: its bootstrap names its admin API
 * (ENVOY_ADMIN_ADDRESS) and its readiness port (ENVOY_STATUS_PORT, which the mock probes for
 * READY), so the page knows both.
 */
async function startSidecar(
  mock: TestMockIstiod,
  bootstrap: { podName?: string; xdsMode?: 'sotw' | 'delta' } = {},
): Promise<Agent> {
  const agent = await startAgent({
    bootstrap: { ...bootstrap, discoveryPort: mock.addresses.xds.port },
    ports: { status: 0, admin: 0, readiness: 0, prometheus: 0 },
    probeIntervalMs: 200,
  });
  agents.push(agent);
  return agent;
}

async function startWithheldSidecar(startMock: Fixtures['startMock']): Promise<TestMockIstiod> {
  const mock = await startLabMock(startMock, true);
  await startSidecar(mock);
  return mock;
}

/**
 * The README's "Point your own Envoy at it" file, `envoy-configs/sidecar-sotw.yaml`, as it is,
 * but for its fixed ports, moved to free ones (the mock's xDS port for 15012) so that tests can
 * run side by side; `edit` changes the text further. Returns the file's path and admin port.
 */
async function readmeBootstrap(
  mock: TestMockIstiod,
  edit: (text: string) => string = (text) => text,
): Promise<MovedBootstrap> {
  const source = join(packageRoot(), 'envoy-configs/sidecar-sotw.yaml');
  const out = join(shotsDir, `readme-bootstrap-${mock.addresses.xds.port}.yaml`);
  return moveFixedPorts(source, mock.addresses.xds.port, out, edit);
}

function pageUrl(mock: TestMockIstiod, query = ''): string {
  const control = mock.addresses.control;
  if (!control) throw new Error('the mock has no control API, which serves the page');
  return `http://127.0.0.1:${control.port}/ui/${query}`;
}

const text = async (page: Page, testId: string) =>
  ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

interface ChartHook {
  labels: string[];
  data: (number | null)[][];
}

/** The chart's last connected_state value, as the page drew it (its test hook). */
async function lastConnectedState(page: Page): Promise<number | null | undefined> {
  const chart = await page.evaluate(
    () => (globalThis as { mockIstiodPage?: { chart?: ChartHook } }).mockIstiodPage?.chart,
  );
  const index = chart?.labels.findIndex((label) => label.endsWith(' connected_state')) ?? -1;
  const values = (chart?.data[index] ?? []).filter((v) => v !== null);
  return values[values.length - 1];
}

const POLL = { timeout: 20_000, interval: 200 };

/** A screenshot of the window, scrolled to the top unless `scrolled`. */
async function shot(page: Page, name: string, scrolled = false): Promise<void> {
  if (!scrolled) await page.evaluate('window.scrollTo(0, 0)');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(shotsDir, `ui-${name}.png`) });
}

describe('the live page, in a real browser', () => {
  it('shows the withheld pod, then LIVE after release, connected_state 0 after down, a NACK', async ({
    startMock,
  }) => {
    const mock = await startWithheldSidecar(startMock);
    const page = await browser.open(pageUrl(mock));

    // 1. Withheld: Envoy waits for its first configuration; the pod is not ready.
    await expect.poll(() => text(page, 'server-state'), POLL).toBe('PRE_INITIALIZING');
    await expect.poll(() => text(page, 'pod-ready'), POLL).toBe('1/2');
    expect(await text(page, 'envoy-ready')).toBe('503 PRE_INITIALIZING');
    await expect.poll(() => page.getByTestId('seq-waiting').count(), POLL).toBeGreaterThan(0);
    await shot(page, '1-withheld');

    // 2. The release button: the configuration arrives, Envoy is LIVE, the pod 2/2.
    await page.getByTestId('release-button').click();
    await expect.poll(() => text(page, 'server-state'), POLL).toBe('LIVE');
    await expect.poll(() => text(page, 'pod-ready'), POLL).toBe('2/2');
    await expect.poll(() => text(page, 'type-LDS'), POLL).toContain('SYNCED');
    expect(await page.getByTestId('seq-ack').count()).toBeGreaterThan(0);
    await shot(page, '2-live');

    // 3. istiod down: the chart's connected_state line drops to 0; the pod stays 2/2.
    await expect.poll(() => lastConnectedState(page), POLL).toBe(1);
    await page.getByTestId('down-button').click();
    await expect
      .poll(() => text(page, 'serving-state'), POLL)
      .toBe('xDS port closed (istiod down)');
    await expect.poll(() => lastConnectedState(page), POLL).toBe(0);
    await expect(page.getByTestId('stats-chart').locator('canvas').count()).resolves.toBe(1);
    expect(await page.getByTestId('stats-chart').getAttribute('data-connected-state')).toBe('0');
    // Its stream ended with the port: the row stays, marked, with what was last known.
    await page.getByTestId('pod-gone').waitFor();
    expect(await text(page, 'pod-ready')).toBe('2/2');
    await shot(page, '3-down');

    // 4. istiod up again, then a config from the NACK catalogue: Envoy's own error, in red.
    await page.getByTestId('up-button').click();
    await expect.poll(() => lastConnectedState(page), { ...POLL, timeout: 30_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('pod-gone').count(), POLL).toBe(0);
    expect(await page.getByTestId('pod').count()).toBe(1);
    await page.getByTestId('nack-button').click();
    const nack = page.getByTestId('seq-nack').last();
    await nack.waitFor({ timeout: 20_000 });
    expect(await nack.getByTestId('nack-message').textContent()).toContain(NACK_TEXT);
    expect(await nack.getAttribute('data-type')).toBe('LDS');
    const color = await nack
      .getByTestId('nack-message')
      .evaluate(
        (element: unknown) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }
          ).getComputedStyle(element).color,
      );
    expect(color).toBe('rgb(179, 38, 30)');
    await expect.poll(() => page.getByTestId('fault').count(), POLL).toBe(1);
    await nack.scrollIntoViewIfNeeded();
    await shot(page, '4-nack', true);

    // Everything the page loaded came from the mock: no CDN, no fonts or icons from outside.
    const origin = new URL(pageUrl(mock)).origin;
    expect(browser.requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
  });

  it("follows the README's own Envoy: the page finds its admin API itself, connected_state and READY 2/2", async ({
    startMock,
    startEnvoy,
  }) => {
    // `npm start` and `envoy -c envoy-configs/sidecar-sotw.yaml`: no agent, no address typed.
    const mock = await startLabMock(startMock, false);
    const bootstrap = await readmeBootstrap(mock);
    expect(readFileSync(bootstrap.path, 'utf8')).toContain(
      `ENVOY_ADMIN_ADDRESS: 127.0.0.1:${bootstrap.admin}`,
    );
    await startEnvoy({ bootstrap: bootstrap.path });
    const page = await browser.open(pageUrl(mock));

    await expect.poll(() => text(page, 'server-state'), POLL).toBe('LIVE');
    await expect.poll(() => text(page, 'type-LDS'), POLL).toContain('SYNCED');
    await expect.poll(() => lastConnectedState(page), POLL).toBe(1);
    expect(await page.getByTestId('stats-chart').getAttribute('data-connected-state')).toBe('1');
    // Nothing answers behind 15021 (no pilot-agent), so Envoy's own /ready decides: not 1/2.
    const ready = page.getByTestId('pod-ready');
    await expect.poll(() => text(page, 'pod-ready'), POLL).toBe('2/2');
    expect(await ready.getAttribute('data-reason')).toBe('envoy');
    expect(await ready.getAttribute('title')).toContain('Envoy’s own /ready');
    expect(await ready.getAttribute('title')).toContain('200 LIVE');

    // Found in the node metadata, not typed in: the page never called POST /ui/admins.
    const base = new URL(pageUrl(mock)).origin;
    const admins = (await (await fetch(`${base}/ui/admins`)).json()) as {
      admins: { admin: string; source: string; reachable: boolean }[];
    };
    expect(admins.admins).toEqual([
      expect.objectContaining({
        admin: `http://127.0.0.1:${bootstrap.admin}`,
        source: 'metadata',
        reachable: true,
      }),
    ]);
    expect(browser.requests.filter((url) => url.endsWith('/ui/admins'))).toEqual([]);
  });

  it('shows READY ? with a hint naming ENVOY_ADMIN_ADDRESS when the admin address is unknown', async ({
    startMock,
    startEnvoy,
  }) => {
    const mock = await startLabMock(startMock, false);
    // The README's file as it was before it named its admin API.
    const bootstrap = await readmeBootstrap(mock, (yaml) =>
      yaml.replace(/^ {4}ENVOY_ADMIN_ADDRESS: .*\n/m, ''),
    );
    expect(readFileSync(bootstrap.path, 'utf8')).not.toMatch(/^ {4}ENVOY_ADMIN_ADDRESS:/m);
    const envoy = await startEnvoy({ bootstrap: bootstrap.path });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const page = await browser.open(pageUrl(mock));

    await expect.poll(() => text(page, 'type-LDS'), POLL).toContain('SYNCED');
    expect(await text(page, 'server-state')).toBe('admin address not known');
    const ready = page.getByTestId('pod-ready');
    // The probe reaches Envoy's readiness listener, which has no agent behind it: still `?`.
    await expect.poll(() => ready.getAttribute('title'), POLL).toContain('no agent answers');
    expect(await text(page, 'pod-ready')).toBe('?');
    expect(await ready.getAttribute('data-reason')).toBe('no-admin');
    expect(await ready.getAttribute('title')).toContain('ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000');
  });

  it('speaks Korean with ?lang=ko, and leaves Envoy’s own words as Envoy prints them', async ({
    startMock,
  }) => {
    const mock = await startWithheldSidecar(startMock);
    const page = await browser.open(pageUrl(mock, '?lang=ko'));
    await expect.poll(() => text(page, 'server-state'), POLL).toBe('PRE_INITIALIZING');
    expect(await page.locator('html').getAttribute('lang')).toBe('ko');
    expect(await page.locator('#pods-title').textContent()).toBe('파드');
    expect(await text(page, 'release-button')).toBe('보류 풀기');
    expect(await text(page, 'withheld-state')).toBe('응답 보류 중');
    expect(await text(page, 'pod-ready')).toBe('1/2');
    await shot(page, 'ko-withheld');

    await page.getByTestId('release-button').click();
    await expect.poll(() => text(page, 'control-outcome'), POLL).toBe('보류 풀기: 완료');
    await expect.poll(() => text(page, 'server-state'), POLL).toBe('LIVE');
    await expect.poll(() => text(page, 'type-CDS'), POLL).toContain('SYNCED');
  });

  it('starts in the language the mock was started with; ?lang=en overrides it', async ({
    startMock,
  }) => {
    const istiod = await startMock({ lang: 'ko' });
    let page = await browser.open(pageUrl(istiod));
    await expect.poll(() => page.locator('#pods-title').textContent(), POLL).toBe('파드');
    expect(await text(page, 'pods-empty')).toBe('아직 연결된 프록시가 없다.');
    page = await browser.open(pageUrl(istiod, '?lang=en'));
    await expect.poll(() => text(page, 'stream-status'), POLL).toBe('live');
    expect(await page.locator('#pods-title').textContent()).toBe('Pods');
  });

  it('asks for the control token when the mock has one, and then works with it', async ({
    startMock,
  }) => {
    const istiod = await startMock({ controlToken: 'classroom-secret' });
    const page = await browser.open(pageUrl(istiod));
    await expect
      .poll(() => page.getByTestId('stream-status').getAttribute('data-status'), POLL)
      .toBe('unauthorized');
    await page.getByTestId('token-input').locator('input').fill('classroom-secret');
    await page.getByTestId('token-save').click();
    await expect
      .poll(() => page.getByTestId('stream-status').getAttribute('data-status'), POLL)
      .toBe('live');
    expect(await text(page, 'withheld-state')).toBe('responses flowing');
    await page.getByTestId('withhold-button').click();
    await expect.poll(() => text(page, 'withheld-state'), POLL).toBe('responses withheld');
    expect((await istiod.control.state()).withheld).toBe(true);

    // The delay button applies a fault; its Remove button takes it away again.
    await page.getByTestId('delay-input').locator('input').fill('1500');
    await page.getByTestId('delay-button').click();
    const fault = page.getByTestId('fault');
    await expect.poll(() => fault.count(), POLL).toBe(1);
    expect(await fault.textContent()).toContain('ms=1500');
    expect((await istiod.control.listFaults()).faults.map((f) => f.scenario)).toEqual(['delay']);
    await fault.getByRole('button', { name: 'Remove' }).click();
    await page.getByTestId('faults-empty').waitFor();
    expect((await istiod.control.listFaults()).faults).toEqual([]);
  });

  it('shows two proxies side by side, each with its own READY and state', async ({ startMock }) => {
    const mock = await startLabMock(startMock, false);
    await startSidecar(mock, { podName: 'orders-v1-0' });
    await startSidecar(mock, { podName: 'orders-v1-1', xdsMode: 'delta' });
    const page = await browser.open(pageUrl(mock));
    const pods = page.getByTestId('pod');
    await expect.poll(() => pods.count(), POLL).toBe(2);
    for (const index of [0, 1]) {
      await expect
        .poll(() => pods.nth(index).getByTestId('pod-ready').textContent(), POLL)
        .toBe('2/2');
      await expect
        .poll(() => pods.nth(index).getByTestId('server-state').textContent(), POLL)
        .toBe('LIVE');
    }
    const names = await pods.getByTestId('pod-name').allTextContents();
    expect(names.sort()).toEqual(['orders-v1-0', 'orders-v1-1']);
    const [left, right] = [await pods.nth(0).boundingBox(), await pods.nth(1).boundingBox()];
    if (!left || !right) throw new Error('the pod cards are not laid out');
    expect(right.y).toBe(left.y);
    expect(right.x).toBeGreaterThanOrEqual(left.x + left.width);
  });
});
