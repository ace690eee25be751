/**
 * The fault e2e tests' lab: the lab upstream, a mock istiod serving the lab's resources,
 * faults applied before any proxy connects (so the very first response is subject to them),
 * then a real sidecar-shaped Envoy pointing at the mock. Built on the public test library,
 * so `closeAll()` / `assertNoLeaks()` cover what it starts.
 */
import { get as httpGet } from 'node:http';
import { startLabUpstream, type LabUpstream } from '../../../scripts/lab-upstream.js';
import { makeLabResources, type LabOptions } from '../../../src/resources/lab.js';
import type { FaultSpec } from '../../../src/faults/model.js';
import type { MockIstiodOptions } from '../../../src/app/options.js';
import type { StartEnvoyOptions } from '../../../src/envoy/envoy-process.js';
import { sidecarBootstrap, startEnvoy, type TestEnvoy } from '../../../src/testing/envoy.js';
import { closeAll } from '../../../src/testing/leaks.js';
import { startMockIstiod, type TestMockIstiod } from '../../../src/testing/start.js';
import { waitFor } from '../../../src/util/wait.js';
import { freeLabPorts } from './lab.js';

export interface FaultLab {
  istiod: TestMockIstiod;
  envoy: TestEnvoy;
  upstream: LabUpstream;
  ports: LabOptions;
  inboundUrl(path?: string): string;
  /** Waits until Envoy's `control_plane.connected_state` is `value`. */
  connected(value: 0 | 1, timeoutMs?: number): Promise<void>;
  /** A counter or gauge of Envoy's (0 when absent). */
  stat(name: string): Promise<number>;
}

export interface FaultLabOptions {
  faults?: FaultSpec[];
  istiod?: Partial<MockIstiodOptions>;
  envoy?: Partial<StartEnvoyOptions>;
  /** Wait for LIVE before returning (default true unless faults are given). */
  live?: boolean;
}

let upstreams: LabUpstream[] = [];

export async function startFaultLab(options: FaultLabOptions = {}): Promise<FaultLab> {
  const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
  upstreams.push(upstream);
  const ports = await freeLabPorts(upstream.port);
  const istiod = await startMockIstiod({ resources: makeLabResources(ports), ...options.istiod });
  for (const fault of options.faults ?? []) await istiod.control.inject(fault);
  const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod), ...options.envoy });
  const lab: FaultLab = {
    istiod,
    envoy,
    upstream,
    ports,
    inboundUrl: (path = '/orders') => `http://127.0.0.1:${ports.inboundPort}${path}`,
    connected: async (value, timeoutMs = 15_000) => {
      await envoy.waitForStat('control_plane.connected_state', (v) => v === value, { timeoutMs });
    },
    stat: async (name) => Number((await envoy.stat(name)) ?? 0),
  };
  if (options.live ?? (options.faults ?? []).length === 0)
    await envoy.waitForLive({ timeoutMs: 20_000 });
  return lab;
}

/** Stops every Envoy and mock the library started, and every lab upstream. */
export async function closeFaultLabs(): Promise<void> {
  await closeAll();
  for (const upstream of upstreams.splice(0)) await upstream.close();
  upstreams = [];
}

/**
 * One HTTP GET on a fresh connection (a kept-alive one would stay on a listener Envoy is
 * draining, and see the old route); connection errors come back as `{ error }`.
 */
export function get(
  url: string,
  timeoutMs = 5_000,
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpGet(url, { agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

/** Waits until GET `url` answers 200 with `body`. */
export function waitForBody(url: string, body: string, timeoutMs = 10_000): Promise<unknown> {
  return waitFor(
    async () => {
      const res = await get(url, 2_000);
      return 'body' in res && res.status === 200 && res.body === body;
    },
    { timeoutMs, description: `GET ${url} to answer 200 "${body}"` },
  );
}
