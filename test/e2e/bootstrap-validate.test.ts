import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { validateEnvoyConfig } from '../../src/envoy/validate.js';
import { freePort } from '../../src/util/ports.js';
import { packageRoot } from '../../src/util/package-root.js';

const configs = join(packageRoot(), 'envoy-configs');

describe('envoy --mode validate', () => {
  it('accepts envoy-configs/sidecar-sotw.yaml', async () => {
    const file = join(configs, 'sidecar-sotw.yaml');
    const result = await validateEnvoyConfig(file);
    expect(result.output).toContain(`configuration '${file}' OK`);
    expect(result.exitCode).toBe(0);
  });

  it('refuses the broken bootstrap with Unknown gRPC client cluster', async () => {
    const result = await validateEnvoyConfig(join(configs, 'sidecar-broken-unknown-cluster.yaml'));
    expect(result.exitCode).toBe(1);
    expect(result.output).toContain("Unknown gRPC client cluster 'xds-grpc-typo'");
  });
});

describe('a sidecar bootstrap with no control plane to reach', () => {
  let envoy: EnvoyProcess | undefined;

  let closeDropper: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await envoy?.stop();
    await closeDropper?.();
    envoy = undefined;
    closeDropper = undefined;
  });

  it('keeps the admin API up, stays PRE_INITIALIZING and is not connected', async () => {
    // A port held by a listener that drops every connection at once: no control plane
    // answers there, and no other test's server can take the port while this one runs.
    const dropper = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    closeDropper = () => new Promise<void>((resolve) => dropper.close(() => resolve()));
    const nobodyAnswers = (dropper.address() as AddressInfo).port;
    envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({ adminPort: 0, discoveryPort: nobodyAnswers }),
    });
    expect(envoy.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Envoy keeps trying (a stream failure per attempt) and never gets its first config.
    await envoy.waitForStat('cluster_manager.cds.update_failure', (v) => Number(v) >= 2);
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    expect(await envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    expect(await envoy.stat('control_plane.connected_state')).toBe(0);
  });

  it('exposes every stat the project reads through the stats matcher', async () => {
    envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({ adminPort: 0, discoveryPort: await freePort() }),
    });
    // server.state is a gauge refreshed at each stats flush, so it lags (0 until the first).
    await envoy.waitForStat('server.state', (v) => v === 2, { timeoutMs: 15_000 });
    const stats = await envoy.stats();
    expect(Object.fromEntries([...stats].filter(([name]) => WATCHED.includes(name)))).toEqual({
      'control_plane.connected_state': 0,
      'cluster_manager.cds.update_success': 0,
      'cluster_manager.cds.update_rejected': 0,
      'cluster_manager.cds.version_text': '',
      'listener_manager.lds.update_success': 0,
      'listener_manager.lds.update_rejected': 0,
      'listener_manager.lds.version_text': '',
      'listener_manager.workers_started': 0,
      'server.state': 2,
    });
    expect([...stats.keys()].some((name) => name.startsWith('cluster.xds-grpc.'))).toBe(true);
    expect(await envoy.dynamicListeners()).toEqual([]);
    expect(await envoy.dynamicActiveClusters()).toEqual([]);
  });
});

const WATCHED = [
  'control_plane.connected_state',
  'cluster_manager.cds.update_success',
  'cluster_manager.cds.update_rejected',
  'cluster_manager.cds.version_text',
  'listener_manager.lds.update_success',
  'listener_manager.lds.update_rejected',
  'listener_manager.lds.version_text',
  'listener_manager.workers_started',
  'server.state',
];
