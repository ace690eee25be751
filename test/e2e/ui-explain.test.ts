/**
 * The live page's "what each injection number becomes" view, in a real headless Chromium:
 * a real Envoy, whose bootstrap names its admin API (ENVOY_ADMIN_ADDRESS), takes the lab
 * from the mock; the page asks `GET /ui/explain` for it, the mock reads that Envoy's own
 * config_dump, and the table shows virtualOutbound and virtualInbound on the lab's ports, in
 * English and in Korean. Chromium is required (`npm run install-chromium`).
 */
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { sidecarBootstrap } from '../../src/testing/envoy.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { freePorts } from '../../src/util/ports.js';
import { it } from '../support/fixtures/test.js';
import { useBrowser } from '../support/harness/browser.js';

const browser = useBrowser();
const POLL = { timeout: 20_000, interval: 200 };

function pageUrl(mock: TestMockIstiod, query = ''): string {
  const control = mock.addresses.control;
  if (!control) throw new Error('the mock has no control API, which serves the page');
  return `http://127.0.0.1:${control.port}/ui/${query}`;
}

/** The row for one injection value: its objects and its note, as the page shows them. */
async function row(page: Page, what: string): Promise<{ objects: string; note: string }> {
  const r = page.locator(`[data-testid="explain-row"][data-what="${what}"]`).first();
  const objects = (await r.getByTestId('explain-objects').textContent()) ?? '';
  const note = (await r.getByTestId('explain-note').textContent()) ?? '';
  return { objects: objects.trim(), note: note.trim() };
}

describe('the live page: what each injection number becomes', () => {
  it('reads the Envoy’s own config_dump: virtualOutbound and virtualInbound on the lab’s ports, in English and Korean', async ({
    startMock,
    startEnvoy,
  }) => {
    const [inboundPort, outboundPort, adminPort] = (await freePorts(3)) as [number, number, number];
    const mock = await startMock({ resources: makeLabResources({ inboundPort, outboundPort }) });
    const bootstrap = sidecarBootstrap(mock, { adminPort });
    expect(JSON.stringify(bootstrap)).toContain(`"ENVOY_ADMIN_ADDRESS":"127.0.0.1:${adminPort}"`);
    const envoy = await startEnvoy({ bootstrap });
    await envoy.waitForLive({ timeoutMs: 20_000 });

    const page = await browser.open(pageUrl(mock));
    await expect
      .poll(async () => (await page.getByTestId('explain-proxy').count()) > 0, POLL)
      .toBe(true);
    // The only proxy is chosen already.
    expect(await page.getByTestId('explain-proxy').first().isChecked()).toBe(true);
    await page.getByTestId('explain-button').click();
    await page.getByTestId('explain-row').first().waitFor({ timeout: 20_000 });

    const config = page.getByTestId('explain-config');
    expect(await config.count()).toBe(1);
    expect(await config.textContent()).toContain(`http://127.0.0.1:${adminPort}`);
    const outbound = await row(page, 'outbound capture');
    expect(outbound.objects).toBe('virtualOutbound, BlackHoleCluster');
    expect(outbound.note).toContain(`listener virtualOutbound OUTBOUND 127.0.0.1:${outboundPort}`);
    expect(outbound.note).toContain('NOT on 15001');
    const inbound = await row(page, 'inbound capture');
    expect(inbound.objects.split(', ')[0]).toBe('virtualInbound');
    expect(inbound.note).toContain(`listener virtualInbound INBOUND 127.0.0.1:${inboundPort}`);
    expect((await row(page, 'unknown destination')).objects).toBe('BlackHoleCluster');
    expect((await row(page, 'UID excluded')).note).toContain('Envoy runs as UID 1337');
    const values = await page.locator('[data-testid="explain-row"] th .mono').allTextContents();
    expect(values).toEqual(
      expect.arrayContaining([
        'istio-init -p 15001',
        'istio-init -z 15006',
        'istio-init -u 1337',
        'istio-init -m REDIRECT',
      ]),
    );
    expect(await page.getByTestId('explain-error').textContent()).toBe('');
    expect(await page.getByTestId('explain-values').getAttribute('data-source')).toBe('seed');

    // The values from the real istioctl kube-inject of the lab's Deployment instead.
    await page.getByTestId('explain-from-inject').check();
    await page.getByTestId('explain-button').click();
    await expect
      .poll(() => page.getByTestId('explain-values').getAttribute('data-source'), POLL)
      .toBe('inject');
    expect(await page.getByTestId('explain-values').textContent()).toContain(
      'Values: read from istioctl kube-inject of the lab’s Deployment.',
    );
    expect((await row(page, 'outbound capture')).objects).toBe('virtualOutbound, BlackHoleCluster');

    // The same view in Korean: its headings and labels, the notes as explain prints them.
    const ko = await browser.open(pageUrl(mock, '?lang=ko'));
    await expect
      .poll(async () => (await ko.getByTestId('explain-proxy').count()) > 0, POLL)
      .toBe(true);
    await ko.getByTestId('explain-button').click();
    await ko.getByTestId('explain-row').first().waitFor({ timeout: 20_000 });
    const table = (await ko.getByTestId('explain').textContent()) ?? '';
    expect(table).toContain('주입 값이 각각 무엇이 되나');
    expect(table).toContain('아웃바운드 캡처 포트');
    expect(table).toContain('캡처하지 않는 인바운드 포트 15021');
    expect((await row(ko, 'outbound capture')).objects).toBe('virtualOutbound, BlackHoleCluster');
  });

  it('compares two real Envoys, each served its own lab set: both tables and why they differ', async ({
    startMock,
    startEnvoy,
  }) => {
    const [aIn, aOut, bIn, bOut, aAdmin, bAdmin] = (await freePorts(6)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const mock = await startMock({
      resources: [
        {
          name: 'lab-a',
          match: { nodeId: '*~lab-a-0.*' },
          resources: makeLabResources({ inboundPort: aIn, outboundPort: aOut }),
        },
        {
          name: 'lab-b',
          match: { nodeId: '*~lab-b-0.*' },
          resources: makeLabResources({ inboundPort: bIn, outboundPort: bOut }),
        },
      ],
    });
    const envoys = await Promise.all([
      startEnvoy({ bootstrap: sidecarBootstrap(mock, { podName: 'lab-a-0', adminPort: aAdmin }) }),
      startEnvoy({ bootstrap: sidecarBootstrap(mock, { podName: 'lab-b-0', adminPort: bAdmin }) }),
    ]);
    await Promise.all(envoys.map((e) => e.waitForLive({ timeoutMs: 20_000 })));

    const page = await browser.open(pageUrl(mock));
    await expect.poll(() => page.getByTestId('explain-proxy').count(), POLL).toBe(2);
    const boxes = page.getByTestId('explain-proxy');
    for (const i of [0, 1]) if (!(await boxes.nth(i).isChecked())) await boxes.nth(i).check();
    expect(((await page.getByTestId('explain-button').textContent()) ?? '').trim()).toBe('Compare');
    await page.getByTestId('explain-button').click();
    await page.getByTestId('explain-differences').waitFor({ timeout: 20_000 });

    const labels = await page.locator('[data-testid="explain-config"] h3').allTextContents();
    expect(labels.map((l) => l.split(' ')[0]).sort()).toEqual([
      'lab-a-0.default',
      'lab-b-0.default',
    ]);
    const differences = (await page.getByTestId('explain-differences').textContent()) ?? '';
    const [first, second] = labels[0]?.startsWith('lab-a') ? [aOut, bOut] : [bOut, aOut];
    expect(differences).toContain(`virtualOutbound on ${first}`);
    expect(differences).toContain(`virtualOutbound on ${second}`);
    expect(differences).toContain('Only 15001 is where iptables (-p) sends outbound traffic');
  });

  it('answers 409 over the API, naming ENVOY_ADMIN_ADDRESS, for an Envoy whose admin address is not known', async ({
    startMock,
    startEnvoy,
  }) => {
    const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
    const mock = await startMock({ resources: makeLabResources({ inboundPort, outboundPort }) });
    // adminPort 0: the bootstrap names no admin address.
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(mock) });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const [stream] = mock.streams();
    const nodeId = stream?.proxy.nodeId ?? '';
    const control = mock.addresses.control?.port;
    const res = await fetch(
      `http://127.0.0.1:${control}/ui/explain?proxy=${encodeURIComponent(nodeId)}`,
    );
    expect(res.status).toBe(409);
    const body = (await res.json()) as {
      error: string;
      problems: { path: string; message: string }[];
    };
    expect(body.error).toBe('Envoy admin address not known');
    expect(body.problems[0]?.path).toBe('proxy[0]');
    expect(body.problems[0]?.message).toContain('ENVOY_ADMIN_ADDRESS');

    // Asked by its address instead, the same Envoy is explained.
    const byAddress = await fetch(
      `http://127.0.0.1:${control}/ui/explain?admin=${encodeURIComponent(envoy.adminUrl)}`,
    );
    expect(byAddress.status).toBe(200);
    const answer = (await byAddress.json()) as {
      configurations: { rows: { what: string; objects: string[] }[] }[];
    };
    const outbound = answer.configurations[0]?.rows.find((r) => r.what === 'outbound capture');
    expect(outbound?.objects[0]).toBe('virtualOutbound');
  });
});
