/**
 * A production-shaped sidecar's dump (istioctl `proxy-config all -o json` of a bookinfo
 * productpage: Istio's own filters, SDS from pilot-agent, ORIGINAL_DST clusters, listeners
 * only iptables reaches) made to run against a real upstream Envoy with docs/import.md's
 * rewrites, then misbehaved with: withhold and NACK on the imported set.
 */
import { afterEach, describe, expect } from 'vitest';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import type { EnvoyProcess } from '../../src/envoy/envoy-process.js';
import type { FaultSpec } from '../../src/faults/model.js';
import {
  importConfigDump,
  readDumpFile,
  type ImportOptions,
} from '../../src/import/import-dump.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { it, type Fixtures } from '../support/fixtures/test.js';
import { ISTIOCTL_FIXTURE, startSidecarEnvoy } from '../support/harness/import-lab.js';
import { get } from '../support/harness/lab.js';

const cli = useCli();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track<T extends { close(): Promise<unknown> } | EnvoyProcess>(thing: T): T {
  cleanups.push(() => ('stop' in thing ? thing.stop() : thing.close()));
  return thing;
}

/** The captured listener ports, and where they listen here. */
async function localPorts() {
  const [outbound, virtualOutbound, virtualInbound, warming] = (await freePorts(4)) as [
    number,
    number,
    number,
    number,
  ];
  return { outbound, virtualOutbound, virtualInbound, warming };
}

type Ports = Awaited<ReturnType<typeof localPorts>>;

const portFlags = (p: Ports) =>
  [
    ['9080', p.outbound],
    ['15001', p.virtualOutbound],
    ['15006', p.virtualInbound],
    ['9091', p.warming],
  ].flatMap(([from, to]) => ['--listener-port', `${from}=${to}`]);

describe('the istioctl dump of a productpage sidecar, made local', () => {
  it('serve --from-config-dump with the rewrites: HTTP through the captured 9080 listener', async () => {
    const upstream = track(await startLabUpstream({ mode: 'ok', port: 0 }));
    const ports = await localPorts();
    const serve = cli.start([
      'serve',
      '--from-config-dump',
      ISTIOCTL_FIXTURE,
      '--upstream',
      `127.0.0.1:${upstream.port}`,
      '--loopback-listeners',
      ...portFlags(ports),
      '--bind-virtual-listeners',
      '--sds',
      'plaintext',
      '--original-dst-to-upstream',
      '--drop-unknown-extensions',
      ...FREE_SERVE_PORTS,
      ...JSON_LOGS,
    ]);
    const serving = await waitForServing(serve);
    expect(serve.stdout()).toContain('import: imported: CDS 6, LDS 4, RDS 1, EDS 2');
    const envoy = track(await startSidecarEnvoy(Number(serving.xds.split(':').pop()), 'delta'));
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect((await envoy.dynamicListeners()).map((l) => l.name).sort()).toEqual([
      '0.0.0.0_9080',
      '0.0.0.0_9091',
      'virtualInbound',
      'virtualOutbound',
    ]);
    // The reviews route (an EDS cluster, endpoints moved to the upstream) …
    expect(
      await get(`http://127.0.0.1:${ports.outbound}/reviews/1`, 5_000, {
        host: 'reviews.default.svc.cluster.local',
      }),
    ).toEqual({
      status: 200,
      body: `ok:${upstream.port} /reviews/1`,
    });
    // … and allow_any, through PassthroughCluster made STATIC at the upstream.
    expect(await get(`http://127.0.0.1:${ports.outbound}/any`)).toEqual({
      status: 200,
      body: `ok:${upstream.port} /any`,
    });
    // What the report names as needing iptables: virtualInbound's chains match port 9080.
    expect(await get(`http://127.0.0.1:${ports.virtualInbound}/`)).toHaveProperty('error');
  });
});

describe('faults on an imported set', () => {
  /** The worked example's import served by a library mock; `faults` apply before Envoy comes. */
  /** The imported set served by a mock (from `startMock`) to an Envoy, with `faults` on. */
  async function startImported(
    startMock: Fixtures['startMock'],
    faults: FaultSpec[] = [],
    keepVersions = false,
  ) {
    const upstream = track(await startLabUpstream({ mode: 'ok', port: 0 }));
    const ports = await localPorts();
    const options: Partial<ImportOptions> = {
      endpoints: { upstream: { address: '127.0.0.1', port: upstream.port } },
      listeners: {
        loopback: true,
        portOffset: 0,
        ports: new Map([
          [9080, ports.outbound],
          [15001, ports.virtualOutbound],
          [15006, ports.virtualInbound],
          [9091, ports.warming],
        ]),
        bindVirtual: true,
      },
      sds: { mode: 'plaintext' },
      originalDstToUpstream: true,
      dropUnknownExtensions: true,
      keepVersions,
    };
    const dump = readDumpFile(ISTIOCTL_FIXTURE);
    const imported = dump.ok ? importConfigDump(dump.value, options) : dump;
    if (!imported.ok) throw new Error(JSON.stringify(imported.problems));
    const istiod = await startMock({ resources: [imported.value.spec] });
    for (const fault of faults) await istiod.control.inject(fault);
    const envoy = track(await startSidecarEnvoy(istiod.addresses.xds.port, 'sotw'));
    const url = `http://127.0.0.1:${ports.outbound}/any`;
    return { istiod, envoy, url, upstream };
  }

  it('withhold LDS: the clusters come, the listeners wait; removed, traffic flows', async ({
    startMock,
  }) => {
    const { istiod, envoy, url, upstream } = await startImported(startMock, [
      { scenario: 'withhold', id: 'lds', scope: { types: ['LDS'] } },
    ]);
    await istiod.waitForAck(CLUSTER_TYPE);
    await waitFor(async () => (await envoy.dynamicActiveClusters()).length === 6, {
      description: 'the six imported clusters',
    });
    expect(await envoy.ready()).toEqual({ status: 503, body: 'INITIALIZING' });
    expect(await envoy.dynamicListeners()).toEqual([]);
    await istiod.control.removeFault({ id: 'lds' });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    expect(await get(url)).toEqual({ status: 200, body: `ok:${upstream.port} /any` });
  });

  it('NACK from the catalogue: Envoy rejects it and keeps serving the imported config', async ({
    startMock,
  }) => {
    const { istiod, envoy, url, upstream } = await startImported(startMock);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    const fault = await istiod.control.inject({
      scenario: 'nack',
      params: { config: 'unknown-cluster' },
    });
    const { nack } = await istiod.waitForNack(LISTENER_TYPE);
    expect(nack.message).toContain("route: unknown cluster 'no-such-cluster'");
    await envoy.waitForStat('listener_manager.lds.update_rejected', (v) => v === 1);
    expect((await envoy.dynamicListeners()).length).toBe(4);
    expect(await get(url)).toEqual({ status: 200, body: `ok:${upstream.port} /any` });
    const since = istiod.journal.query().at(-1)?.seq ?? 0;
    await fault.remove();
    await istiod.waitForRequest('LDS', { kind: 'ack', since });
  });

  it('down / up: the imported config keeps serving; Envoy comes back with the captured version', async ({
    startMock,
  }) => {
    const { istiod, envoy, url, upstream } = await startImported(startMock, [], true);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const acked = await istiod.waitForAck(CLUSTER_TYPE);
    expect(acked.version).toBe('2026-11-30T10:00:00Z/42');
    await istiod.waitForAck(LISTENER_TYPE);
    const fault = await istiod.control.inject({ scenario: 'down' });
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await get(url)).toEqual({ status: 200, body: `ok:${upstream.port} /any` });
    const since = istiod.journal.query().at(-1)?.seq ?? 0;
    await fault.remove();
    const reconnect = await istiod.waitForRequest('CDS', { kind: 'reconnect', since });
    expect(reconnect.version).toBe('2026-11-30T10:00:00Z/42');
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 1);
    expect(await envoy.stat('cluster_manager.cds.update_rejected')).toBe(0);
  });
});
