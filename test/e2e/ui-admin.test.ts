/**
 * The live page's view of a real Envoy, read from its admin API while the page is open:
 * PRE_INITIALIZING with `control_plane.connected_state` 1 while withheld, LIVE after the
 * release, and `connected_state` 0 once the mock's xDS port is down. The admin address comes
 * from the node metadata (`ENVOY_ADMIN_ADDRESS`), or from the page (`POST /ui/admins`), which
 * the mock ties to the proxy by the node id Envoy's `/server_info` reports.
 */
import { afterEach, describe, expect } from 'vitest';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import type { UiProxy, UiSnapshot, UiStatSample } from '../../src/live/ui-events.js';
import { startAgent } from '../../src/envoy/agent.js';
import { startEnvoy, type EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { makeLabResources } from '../../src/resources/lab.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { freePorts } from '../../src/util/ports.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { SseReader } from '../support/fixtures/sse.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()?.catch(() => undefined);
});

/** A mock (closed by the `startMock` fixture, after the clean-ups) with the page open on it. */
async function lab(startMock: Fixtures['startMock'], withholdFirst: boolean) {
  const [adminPort, inboundPort, outboundPort] = (await freePorts(3)) as [number, number, number];
  const istiod = await startMock({
    resources: makeLabResources({ inboundPort, outboundPort }),
    withholdFirst,
  });
  const base = `http://127.0.0.1:${istiod.addresses.control?.port}`;
  const page = await SseReader.open(`${base}/ui/events`);
  cleanups.push(() => page.close());
  await page.next<UiSnapshot>('snapshot');
  return { istiod, base, page, adminPort };
}

async function envoyFor(
  istiod: TestMockIstiod,
  bootstrap: Parameters<typeof makeSidecarBootstrap>[0],
) {
  const envoy: EnvoyProcess = await startEnvoy({
    bootstrap: makeSidecarBootstrap({ discoveryPort: istiod.addresses.xds.port, ...bootstrap }),
  });
  cleanups.push(() => envoy.stop());
  return envoy;
}

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', ...(body !== undefined && { body: JSON.stringify(body) }) });

const connected = (sample: UiStatSample) => sample.values['control_plane.connected_state'];

describe('the live page and a real Envoy', () => {
  it('shows PRE_INITIALIZING and connected_state 1 while withheld, LIVE after release, connected_state 0 after down', async ({
    startMock,
  }) => {
    const { istiod, base, page, adminPort } = await lab(startMock, true);
    const admin = `http://127.0.0.1:${adminPort}`;
    await envoyFor(istiod, {
      adminPort,
      metadata: { ENVOY_ADMIN_ADDRESS: `127.0.0.1:${adminPort}` },
    });

    const [held] = await page.next<UiProxy[]>('proxies', (rows) =>
      rows.some((r) => r.envoy.state === 'PRE_INITIALIZING'),
    );
    expect(held?.envoy).toMatchObject({
      admin,
      adminSource: 'metadata',
      ready: { status: 503, body: 'PRE_INITIALIZING' },
    });
    expect(held?.types.find((t) => t.type === 'CDS')?.status).toBe('NOT SENT');
    await page.next<UiStatSample[]>('stats', (s) => s.some((x) => connected(x) === 1));

    expect((await post(`${base}/control/release`)).status).toBe(200);
    const [live] = await page.next<UiProxy[]>('proxies', (rows) =>
      rows.some((r) => r.envoy.state === 'LIVE'),
    );
    expect(live?.envoy.ready).toEqual({ status: 200, body: 'LIVE' });
    await istiod.waitForAck(LISTENER_TYPE);

    expect((await post(`${base}/control/down`)).status).toBe(200);
    const samples = await page.next<UiStatSample[]>('stats', (s) =>
      s.some((x) => x.admin === admin && connected(x) === 0),
    );
    expect(samples.find((x) => connected(x) === 0)?.nodeId).toBe(live?.nodeId);
    // The stream is gone, but the admin API is still polled: Envoy runs on without istiod.
    const admins = (await (await fetch(`${base}/ui/admins`)).json()) as {
      admins: { admin: string; reachable: boolean }[];
    };
    expect(admins.admins).toEqual([expect.objectContaining({ admin, reachable: true })]);
  });

  it('ties an admin address added on the page to its proxy by the node id Envoy reports', async ({
    startMock,
  }) => {
    const { istiod, base, page } = await lab(startMock, false);
    const envoy = await envoyFor(istiod, { adminPort: 0, podName: 'added-by-hand-0' });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const added = await post(`${base}/ui/admins`, { address: envoy.adminUrl });
    expect(added.status).toBe(201);
    const [row] = await page.next<UiProxy[]>('proxies', (rows) =>
      rows.some((r) => r.name === 'added-by-hand-0' && r.envoy.state === 'LIVE'),
    );
    expect(row?.envoy).toMatchObject({ admin: envoy.adminUrl, adminSource: 'user' });
  });

  it("shows the pod 1/2 while withheld and 2/2 once released, from the agent's readiness", async ({
    startMock,
  }) => {
    const { istiod, base, page } = await lab(startMock, true);
    const agent = await startAgent({
      bootstrap: { discoveryPort: istiod.addresses.xds.port, podName: 'with-agent-0' },
      ports: { status: 0, admin: 0, readiness: 0, prometheus: 0 },
    });
    cleanups.push(() => agent.stop());
    const [held] = await page.next<UiProxy[]>('proxies', (rows) =>
      rows.some((r) => r.ready === '1/2' && r.envoy.state === 'PRE_INITIALIZING'),
    );
    // Found without being told: the agent's bootstrap names its admin API in the metadata.
    expect(held?.envoy).toMatchObject({
      admin: `http://127.0.0.1:${agent.ports.admin}`,
      adminSource: 'metadata',
    });
    // Withheld, Envoy's listeners (the readiness one too) do not accept yet: the kubelet's words.
    expect(held?.readyDetail).toMatch(/connection refused$/);
    expect((await post(`${base}/control/release`)).status).toBe(200);
    const [ready] = await page.next<UiProxy[]>('proxies', (rows) =>
      rows.some((r) => r.ready === '2/2' && r.envoy?.state === 'LIVE'),
    );
    expect(ready).toMatchObject({ name: 'with-agent-0', envoy: { state: 'LIVE' } });
  });
});
