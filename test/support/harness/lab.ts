/**
 * The sidecar lab on free ports: the lab upstream (the app), a mock istiod serving the lab's
 * listeners and clusters, and a real Envoy bootstrapped like a sidecar pointing at the mock.
 * `close()` stops everything it started, Envoy first, and is safe to call twice; `useLab()`
 * calls it after each test.
 */
import { afterEach, expect } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startLabUpstream, type LabUpstream } from '../../../scripts/lab-upstream.js';
import { makeSidecarBootstrap } from '../../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../../src/envoy/envoy-process.js';
import { makeLabResources, type LabOptions } from '../../../src/resources/lab.js';
import { makeHttpListener } from '../../../src/resources/listener.js';
import type { EnvoyResource } from '../../../src/resources/types.js';
import type { MockIstiodOptions } from '../../../src/app/options.js';
import { freePorts } from '../../../src/util/ports.js';
import { startMockIstiod, type TestMockIstiod } from '../../../src/testing/start.js';

export interface Lab {
  istiod: TestMockIstiod;
  envoy: EnvoyProcess;
  upstream: LabUpstream;
  ports: LabOptions;
  /** `http://127.0.0.1:<inbound port><path>` */
  inboundUrl(path: string): string;
  outboundUrl(path: string): string;
  /** Starts a new mock istiod on the same xDS port (after `istiod.close()`). */
  restartIstiod(options?: Partial<MockIstiodOptions>): Promise<TestMockIstiod>;
  close(): Promise<void>;
}

export interface LabEnvoyOptions {
  /** How Envoy speaks to the mock (default: state of the world). */
  xdsMode?: 'sotw' | 'delta';
  /** The lab's resources: STATIC clusters and inline routes (default) or EDS + RDS. */
  discovery?: LabOptions['discovery'];
  /** Changes the lab's resource set before the mock starts serving it. */
  transform?: (resources: EnvoyResource[]) => EnvoyResource[];
}

export async function startLab(
  options: Partial<MockIstiodOptions> = {},
  envoyOptions: LabEnvoyOptions = {},
): Promise<Lab> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const ports = await freeLabPorts(upstream.port, envoyOptions.discovery);
    const labResources = makeLabResources(ports);
    const resources = envoyOptions.transform ? envoyOptions.transform(labResources) : labResources;
    let istiod = await startMockIstiod({ resources, ...options });
    cleanups.push(() => istiod.close());
    const xdsPort = istiod.addresses.xds.port;
    const envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({
        discoveryPort: xdsPort,
        adminPort: 0,
        xdsMode: envoyOptions.xdsMode ?? 'sotw',
      }),
    });
    cleanups.push(() => envoy.stop());
    const lab: Lab = {
      get istiod() {
        return istiod;
      },
      envoy,
      upstream,
      ports,
      inboundUrl: (path) => `http://127.0.0.1:${ports.inboundPort}${path}`,
      outboundUrl: (path) => `http://127.0.0.1:${ports.outboundPort}${path}`,
      async restartIstiod(restartOptions = {}) {
        istiod = await startMockIstiod({
          resources,
          ...restartOptions,
          xds: { host: '127.0.0.1', port: xdsPort },
        });
        cleanups.splice(1, 0, () => istiod.close());
        return istiod;
      },
      close,
    };
    return lab;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A lab per test, closed after each test (even a failed one). Call `useLab()` at the top of a
 * test file and `start()` in a test.
 */
export function useLab() {
  let current: Lab | undefined;
  const stop = async () => {
    await current?.close();
    current = undefined;
  };
  afterEach(stop);
  return {
    /** The lab of the current test, if `start` was called. */
    get current(): Lab | undefined {
      return current;
    },
    /** Starts the test's lab (closing an earlier one of the same test, if any). */
    start: async (
      options: Partial<MockIstiodOptions> = {},
      envoyOptions: LabEnvoyOptions = {},
    ): Promise<Lab> => {
      await stop();
      current = await startLab(options, envoyOptions);
      return current;
    },
  };
}

/**
 * The traffic the lab's config gives, checked from outside: the inbound listener forwards to
 * the app, the outbound one has no upstream to send to (503).
 */
export async function expectLabTraffic(lab: Lab): Promise<void> {
  expect(await get(lab.inboundUrl('/orders'))).toEqual({
    status: 200,
    body: `ok:${lab.ports.appPort} /orders`,
  });
  expect(await get(lab.outboundUrl('/'))).toEqual({ status: 503, body: 'no healthy upstream' });
}

/**
 * The lab's virtualInbound with its route pointing at a cluster that does not exist
 * (`no-such-cluster`): Envoy rejects the LDS response that carries it.
 */
export function makeBrokenInbound(inboundPort: number) {
  return makeHttpListener({
    name: 'virtualInbound',
    address: '127.0.0.1',
    port: inboundPort,
    direction: 'INBOUND',
    cluster: 'no-such-cluster',
  });
}

/**
 * The lab's addresses, all on loopback: its two listeners on free ports, and the app (the lab
 * upstream) at `appPort`.
 */
export async function freeLabPorts(
  appPort: number,
  discovery: LabOptions['discovery'] = 'static',
): Promise<LabOptions> {
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  return {
    listenerAddress: '127.0.0.1',
    inboundPort,
    outboundPort,
    appAddress: '127.0.0.1',
    appPort,
    discovery,
    mtls: false,
  };
}

/** One HTTP GET with a deadline; connection errors come back as `{ error }`. */
/**
 * One GET on a connection of its own. A pooled connection would stay on the filter chain it
 * was accepted by, and Envoy drains an old chain gradually after a listener update, so a
 * reused connection can keep seeing the old route for a while: "traffic follows" must be asked
 * on a new connection each time.
 */
export function get(
  url: string,
  timeoutMs = 5_000,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, timeout: timeoutMs, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}
