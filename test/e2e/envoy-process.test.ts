/**
 * The Envoy process helper against a real Envoy, with no control plane involved: the lab's
 * listeners and clusters come from files (Envoy's filesystem xDS), so these tests check the
 * helper alone (start, waitForLive, config_dump readers, stats, early exit, stop).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLabUpstream, type LabUpstream } from '../../scripts/lab-upstream.js';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { MockIstiodError } from '../../src/util/errors.js';

const APP_CLUSTER = 'inbound|8101||';

function listener(name: string, direction: string, cluster: string): object {
  const hcm = {
    '@type':
      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
    stat_prefix: name,
    route_config: {
      virtual_hosts: [
        { name: 'all', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster } }] },
      ],
    },
    http_filters: [
      {
        name: 'envoy.filters.http.router',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
        },
      },
    ],
  };
  return {
    '@type': 'type.googleapis.com/envoy.config.listener.v3.Listener',
    name,
    traffic_direction: direction,
    address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
    filter_chains: [
      { filters: [{ name: 'envoy.filters.network.http_connection_manager', typed_config: hcm }] },
    ],
  };
}

function staticCluster(name: string, appPort?: number): object {
  const endpoint = { address: { socket_address: { address: '127.0.0.1', port_value: appPort } } };
  return {
    '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
    name,
    type: 'STATIC',
    load_assignment: {
      cluster_name: name,
      endpoints: appPort === undefined ? [] : [{ lb_endpoints: [{ endpoint }] }],
    },
  };
}

/** A bootstrap whose LDS and CDS are files holding the seed lab's resources. */
function fileXdsBootstrap(dir: string, appPort: number): object {
  const lds = join(dir, 'lds.json');
  const cds = join(dir, 'cds.json');
  writeFileSync(
    lds,
    JSON.stringify({
      resources: [
        listener('virtualInbound', 'INBOUND', APP_CLUSTER),
        listener('virtualOutbound', 'OUTBOUND', 'BlackHoleCluster'),
      ],
    }),
  );
  writeFileSync(
    cds,
    JSON.stringify({
      resources: [staticCluster(APP_CLUSTER, appPort), staticCluster('BlackHoleCluster')],
    }),
  );
  const { node, admin } = makeSidecarBootstrap({ adminPort: 0 });
  return {
    node,
    admin,
    dynamic_resources: {
      lds_config: { path_config_source: { path: lds }, resource_api_version: 'V3' },
      cds_config: { path_config_source: { path: cds }, resource_api_version: 'V3' },
    },
  };
}

async function get(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.text() };
}

describe('EnvoyProcess', () => {
  const cleanups: (() => unknown)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startLab(): Promise<{ envoy: EnvoyProcess; upstream: LabUpstream }> {
    const dir = mkdtempSync(join(tmpdir(), 'envoy-process-test-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const envoy = await startEnvoy({ bootstrap: fileXdsBootstrap(dir, upstream.port) });
    cleanups.push(() => envoy.stop());
    return { envoy, upstream };
  }

  it('waits for LIVE, then reads listeners and clusters and carries traffic', async () => {
    const { envoy, upstream } = await startLab();
    await envoy.waitForLive();
    expect(await envoy.ready()).toEqual({ status: 200, body: 'LIVE' });
    expect(await envoy.stat('listener_manager.workers_started')).toBe(1);
    const listeners = await envoy.dynamicListeners();
    expect(listeners.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'virtualInbound', direction: 'INBOUND', port: 0 },
      { name: 'virtualOutbound', direction: 'OUTBOUND', port: 0 },
    ]);
    expect((await envoy.dynamicActiveClusters()).sort()).toEqual(['BlackHoleCluster', APP_CLUSTER]);
    const bound = new Map((await envoy.boundListeners()).map((l) => [l.name, l.port]));
    const inbound = `http://127.0.0.1:${bound.get('virtualInbound')}`;
    const outbound = `http://127.0.0.1:${bound.get('virtualOutbound')}`;
    expect(await get(`${inbound}/orders`)).toEqual({
      status: 200,
      body: `ok:${upstream.port} /orders`,
    });
    expect(await get(`${outbound}/`)).toEqual({ status: 503, body: 'no healthy upstream' });
    const stat = `cluster.${APP_CLUSTER}.upstream_rq_200`;
    expect(await envoy.waitForStat(stat, (v) => v === 1)).toBe(1);
    expect((await envoy.stats()).get('cluster.BlackHoleCluster.upstream_cx_none_healthy')).toBe(1);
  });

  it('rejects waitForLive at once with the exit code and log when Envoy exits', async () => {
    const started = Date.now();
    const attempt = (async () => {
      const envoy = await startEnvoy({
        bootstrap: makeSidecarBootstrap({ adminPort: 0, adsClusterName: 'xds-grpc-typo' }),
      });
      cleanups.push(() => envoy.stop());
      await envoy.waitForLive({ timeoutMs: 30_000 });
    })();
    // Envoy may exit before or after its admin address is read: both must reject the same way.
    const error: unknown = await attempt.catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MockIstiodError);
    expect(error).toMatchObject({ code: 'ENVOY_EXITED', details: { exit: { code: 1 } } });
    expect((error as Error).message).toContain("Unknown gRPC client cluster 'xds-grpc-typo'");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stop() ends the process, removes its files and is idempotent', async () => {
    const { envoy } = await startLab();
    // Envoy handles SIGTERM (exit code 0) once its main loop runs; before that, SIGTERM's
    // default action kills it (signal SIGTERM). Wait for LIVE to see the graceful path.
    await envoy.waitForLive();
    const pid = envoy.pid;
    expect(pid).toBeGreaterThan(0);
    const [first, second] = await Promise.all([envoy.stop(), envoy.stop()]);
    expect(first).toEqual({ code: 0, signal: null });
    expect(second).toBe(first);
    expect(await envoy.stop()).toBe(first);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(envoy.logs()).toContain('caught ENVOY_SIGTERM');
    await expect(envoy.ready()).rejects.toThrow();
  });
});
