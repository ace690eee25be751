/**
 * A real Envoy's configuration, brought home: Envoy A is served a set (the lab, and an
 * Istio-shaped sidecar with RDS, EDS, mTLS contexts naming SDS secrets and several filter
 * chains), `mock-istiod capture` saves its config_dump, the dump is imported and served to
 * Envoy B over the same protocol (SotW, delta). B's dynamic listeners, clusters and routes
 * equal A's, and HTTP through B's listeners answers as through A's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import type { EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { importConfigDump, readDumpFile } from '../../src/import/import-dump.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { it, type Fixtures } from '../support/fixtures/test.js';
import {
  istioSidecarResources,
  makeTlsDir,
  startSidecarEnvoy,
  summarizeDump,
  type DumpSummary,
} from '../support/harness/import-lab.js';
import { freeLabPorts, get } from '../support/harness/lab.js';

const cli = useCli();
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Registers something to close after the test (even a failed one), and returns it. The mocks
 * come from `startMock`, closed after these (the Envoys first).
 */
function track<T extends { close(): Promise<unknown> } | EnvoyProcess>(thing: T): T {
  cleanups.push(() => ('stop' in thing ? thing.stop() : thing.close()));
  return thing;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-dump-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const answers = (urls: string[]) => Promise.all(urls.map((url) => get(url)));

interface Captured {
  dumpPath: string;
  summary: DumpSummary;
  traffic: Awaited<ReturnType<typeof answers>>;
  cdsVersion: unknown;
}

/** Envoy A served `resources`; its traffic and its dump (through `mock-istiod capture`). */
async function captureEnvoyA(
  startMock: Fixtures['startMock'],
  resources: unknown[],
  xdsMode: 'sotw' | 'delta',
  urls: string[],
): Promise<Captured> {
  const istiod = await startMock({ resources });
  const envoy = track(await startSidecarEnvoy(istiod.addresses.xds.port, xdsMode));
  await envoy.waitForLive({ timeoutMs: 20_000 });
  const traffic = await answers(urls);
  const dumpPath = join(tempDir(), 'dump.json');
  const captured = await cli.run([
    'capture',
    '--admin',
    new URL(envoy.adminUrl).host,
    '-o',
    dumpPath,
  ]);
  expect(captured.stderr).toContain('captured');
  expect(captured.code).toBe(0);
  const summary = summarizeDump(JSON.parse(readFileSync(dumpPath, 'utf8')));
  const cdsVersion = await envoy.stat('cluster_manager.cds.version_text');
  // A goes away before B comes, so that B can listen on the same ports.
  await envoy.stop();
  await istiod.close();
  return { dumpPath, summary, traffic, cdsVersion };
}

describe.each(['sotw', 'delta'] as const)('a captured config served again over %s', (xdsMode) => {
  it('the lab: serve --from-config-dump --keep-versions gives Envoy B what A had', async ({
    startMock,
  }) => {
    const upstream = track(await startLabUpstream({ mode: 'ok', port: 0 }));
    const ports = await freeLabPorts(upstream.port);
    const urls = [
      `http://127.0.0.1:${ports.inboundPort}/orders`,
      `http://127.0.0.1:${ports.outboundPort}/`,
    ];
    const a = await captureEnvoyA(startMock, makeLabResources(ports), xdsMode, urls);
    expect(a.summary.listeners.map((l) => (l as { name: string }).name)).toEqual([
      'virtualInbound',
      'virtualOutbound',
    ]);
    expect(a.traffic).toEqual([
      { status: 200, body: `ok:${upstream.port} /orders` },
      { status: 503, body: 'no healthy upstream' },
    ]);

    const serve = cli.start([
      'serve',
      '--from-config-dump',
      a.dumpPath,
      '--keep-versions',
      ...FREE_SERVE_PORTS,
      ...JSON_LOGS,
    ]);
    const serving = await waitForServing(serve);
    const envoyB = track(await startSidecarEnvoy(Number(serving.xds.split(':').pop()), xdsMode));
    await envoyB.waitForLive({ timeoutMs: 20_000 });
    expect(summarizeDump(await envoyB.configDump())).toEqual(a.summary);
    expect(await answers(urls)).toEqual(a.traffic);
    expect(await envoyB.stat('cluster_manager.cds.version_text')).toBe(a.cdsVersion);
    expect(serve.stdout()).toContain('import: imported: CDS 2, LDS 2');
  });

  it('an Istio-shaped sidecar (RDS, EDS, mTLS over SDS, filter chains) with --sds ca', async ({
    startMock,
  }) => {
    const tls = await makeTlsDir();
    cleanups.push(() => tls.remove());
    const upstream = track(await startLabUpstream({ mode: 'ok', port: 0 }));
    const [inbound, outbound] = (await freePorts(2)) as [number, number];
    const resources = istioSidecarResources({ inbound, outbound, app: upstream.port }, tls.files);
    const urls = [`http://127.0.0.1:${outbound}/reviews`, `http://127.0.0.1:${inbound}/direct`];
    const a = await captureEnvoyA(startMock, resources, xdsMode, urls);
    expect(a.traffic).toEqual([
      { status: 200, body: `ok:${upstream.port} /reviews` },
      { status: 200, body: `ok:${upstream.port} /direct` },
    ]);

    expect(a.summary.listeners).toMatchObject([
      {
        name: '0.0.0.0_9080',
        chains: [{ filters: ['envoy.filters.network.http_connection_manager'] }],
      },
      {
        name: 'virtualInbound',
        chains: [
          { name: 'inbound_0.0.0.0_9080_mtls', tls: 'envoy.transport_sockets.tls' },
          { name: 'inbound_0.0.0.0_9080_plaintext', tls: undefined },
        ],
      },
    ]);
    expect(a.summary.routes).toEqual([
      { name: '9080', virtualHosts: ['reviews.default.svc.cluster.local:9080'] },
    ]);

    const dump = readDumpFile(a.dumpPath);
    const imported =
      dump.ok && importConfigDump(dump.value, { sds: { mode: 'ca', files: tls.files } });
    if (!imported || !imported.ok) throw new Error(`import failed: ${JSON.stringify(imported)}`);
    const { report } = imported.value;
    expect(report.counts).toEqual({ CDS: 4, EDS: 1, LDS: 2, RDS: 1, SDS: 2 });
    expect(report.rewrites.map((r) => r.message)).toEqual(
      expect.arrayContaining([
        "secret default → the mock's CA material, over ADS",
        "secret ROOTCA → the mock's CA material, over ADS",
        "removed: the mock's certificate carries no workload (SPIFFE) identity to match",
      ]),
    );
    expect(report.cannotWork.map((p) => p.message).join('\n')).toContain(
      'PassthroughCluster is ORIGINAL_DST',
    );

    const istiodB = await startMock({ resources: [imported.value.spec] });
    const envoyB = track(await startSidecarEnvoy(istiodB.addresses.xds.port, xdsMode));
    await envoyB.waitForLive({ timeoutMs: 20_000 });
    expect(summarizeDump(await envoyB.configDump())).toEqual(a.summary);
    expect(await answers(urls)).toEqual(a.traffic);
    // The outbound request really went through mTLS to virtualInbound.
    const handshakes = await envoyB.stat(
      'cluster.outbound|9080||reviews.default.svc.cluster.local.ssl.handshake',
    );
    expect(handshakes).toBeGreaterThan(0);
  });
});
