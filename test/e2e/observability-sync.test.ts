/**
 * istiod's view of a real Envoy: `/debug/syncz` and `proxy-status` say NOT SENT while the
 * mock withholds, SYNCED once Envoy ACKs, ERROR with Envoy's own message after a NACK;
 * `/debug/config_dump` shows what Envoy got; `/metrics` counts the pushes, ACKs and NACKs.
 */
import { describe, expect, it } from 'vitest';
import {
  errorLines,
  proxyStatusTable,
  statusCell,
  type SyncStatusJson,
} from '../../src/cli/client/proxy-status-view.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { makeBrokenInbound, useLab } from '../support/harness/lab.js';

const labs = useLab();

async function control<T>(path: string): Promise<T> {
  const res = await fetch(
    `http://127.0.0.1:${labs.current?.istiod.addresses.control?.port}${path}`,
  );
  expect(res.status).toBe(200);
  return (res.headers.get('content-type') ?? '').includes('json')
    ? ((await res.json()) as T)
    : ((await res.text()) as T);
}

const syncz = () => control<SyncStatusJson[]>('/debug/syncz');

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the sync status of a real Envoy', () => {
  it('is NOT SENT while withheld and SYNCED after the ACKs; config_dump matches what Envoy runs', async () => {
    const lab = await labs.start({ withholdFirst: true });
    const { envoy, istiod } = lab;
    await waitFor(async () => (await envoy.stat('control_plane.connected_state')) === 1, {
      description: 'Envoy to connect',
    });
    // Envoy reports itself connected before the mock has read its first request.
    await istiod.waitForRequest('CDS');
    const [withheld] = await syncz();
    expect(withheld?.resources?.[CLUSTER_TYPE]).toEqual({ sentTime: '0001-01-01T00:00:00Z' });
    // Envoy asks for LDS only after the CDS phase: nothing asked yet, so IGNORED.
    expect(proxyStatusTable(await syncz(), 'mock', Date.now())).toMatch(
      /orders-v1-0\.default {5}Kubernetes {5}NOT SENT {5}IGNORED /,
    );

    await istiod.control.release();
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    const [synced] = await syncz();
    expect(statusCell(synced?.resources?.[CLUSTER_TYPE], Date.now())).toMatch(/^SYNCED \(\d+s\)$/);
    expect(statusCell(synced?.resources?.[LISTENER_TYPE], Date.now())).toMatch(/^SYNCED \(\d+s\)$/);
    expect(synced).toMatchObject({
      proxy: 'orders-v1-0.default',
      proxy_type: 'sidecar',
      istio_version: '1.28.0',
    });

    const dump = await control<{ configs: Record<string, unknown>[] }>(
      '/debug/config_dump?proxyID=orders-v1-0',
    );
    const clusters = dump.configs.find((c) =>
      String(c['@type']).endsWith('ClustersConfigDump'),
    ) as {
      dynamic_active_clusters: { cluster: { name: string } }[];
    };
    expect(clusters.dynamic_active_clusters.map((c) => c.cluster.name).sort()).toEqual(
      (await envoy.dynamicActiveClusters()).sort(),
    );
    const listeners = dump.configs.find((c) =>
      String(c['@type']).endsWith('ListenersConfigDump'),
    ) as {
      version_info: string;
      dynamic_listeners: { name: string }[];
    };
    expect(listeners.dynamic_listeners.map((l) => l.name).sort()).toEqual(
      (await envoy.dynamicListeners()).map((l) => l.name).sort(),
    );
    expect(listeners.version_info).toBe(await envoy.stat('listener_manager.lds.version_text'));
  });

  it("is ERROR with Envoy's message after a NACK, counted in /metrics, and SYNCED again after a fix", async () => {
    const lab = await labs.start();
    const { envoy, istiod, ports } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    let metrics = await control<string>('/metrics');
    expect(sample(metrics, 'pilot_xds{version="1.28.0"}')).toBe(1);
    expect(sample(metrics, 'pilot_xds_pushes{type="cds"}')).toBe(1);
    expect(sample(metrics, 'pilot_xds_pushes{type="lds"}')).toBe(1);
    expect(sample(metrics, 'mock_istiod_requests_total{type="CDS",kind="ack"}')).toBe(1);
    expect(metrics).not.toContain('pilot_total_xds_rejects{');

    const lab2 = makeLabResources(ports);
    const bad = makeBrokenInbound(ports.inboundPort);
    const withoutInbound = lab2.filter((r) => r.name !== 'virtualInbound');
    await istiod.control.setResources({ resources: [...withoutInbound, bad] });
    const { nack } = await istiod.waitForNack(LISTENER_TYPE);
    expect(nack.code).toBe(13);

    const [errored] = await syncz();
    const lastError = errored?.resources?.[LISTENER_TYPE]?.lastError ?? '';
    expect(lastError).toBe(nack.message);
    expect(lastError).toContain("unknown cluster 'no-such-cluster'");
    expect(statusCell(errored?.resources?.[LISTENER_TYPE], Date.now())).toMatch(/^ERROR \(\d+s\)$/);
    expect(statusCell(errored?.resources?.[CLUSTER_TYPE], Date.now())).toMatch(/^SYNCED/);
    expect(errorLines(await syncz())).toEqual([
      `orders-v1-0.default LDS rejected: ${nack.message.trim()}`,
    ]);

    metrics = await control<string>('/metrics');
    expect(sample(metrics, 'pilot_total_xds_rejects{type="lds"}')).toBe(1);
    expect(sample(metrics, 'pilot_xds_lds_reject{node="orders-v1-0.default",err="Internal"}')).toBe(
      1,
    );
    expect(sample(metrics, 'pilot_xds_pushes{type="lds"}')).toBe(2);
    expect(sample(metrics, 'mock_istiod_proxy_sync{type="LDS",status="ERROR"}')).toBe(1);

    await istiod.control.setResources({ resources: lab2 });
    await istiod.waitForAck(LISTENER_TYPE);
    const [fixed] = await syncz();
    expect(fixed?.resources?.[LISTENER_TYPE]).not.toHaveProperty('lastError');
    expect(statusCell(fixed?.resources?.[LISTENER_TYPE], Date.now())).toMatch(/^SYNCED/);
    metrics = await control<string>('/metrics');
    expect(sample(metrics, 'pilot_xds_pushes{type="lds"}')).toBe(3);
    expect(sample(metrics, 'pilot_total_xds_rejects{type="lds"}')).toBe(1);
    // Both changes touched only LDS; each converged once Envoy had been sent it.
    expect(sample(metrics, 'pilot_proxy_convergence_time_count')).toBe(2);
  });
});
