/**
 * The image from a test suite, the Testcontainers way (docs/container.md, "From a test suite:
 * Testcontainers"): `testcontainers` 12 for Node starts the image built by
 * scripts/build-image.sh through podman's Docker-compatible API socket (a `podman system
 * service` this test starts, with runc and explicit ulimits), waits for its log line, and a
 * fault applied over the control API (`withhold`) holds an ADS client's response until it is
 * released. testcontainers 12 needs Node 22.22 or later: under an older Node this test fails,
 * saying how to run it under Node 24.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createControlClient } from '../../src/api/client.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import {
  buildImage,
  E2E_IMAGE_TAG,
  podmanConf,
  requireImageTools,
} from '../support/harness/image.js';

const TAG = E2E_IMAGE_TAG;
const TOKEN = 'testcontainers-token';
/** testcontainers 12's own `engines` (it does not load on older Node). */
const NODE_NEEDED = [22, 22] as const;

let dir: string | undefined;
let service: ChildProcess | undefined;
let container: { stop(): Promise<unknown> } | undefined;
let ads: AdsTestClient | undefined;

function nodeIsOldEnough(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  return major > NODE_NEEDED[0] || (major === NODE_NEEDED[0] && minor >= NODE_NEEDED[1]);
}

/** Throws, saying how to get a Node that runs testcontainers 12, unless this one does. */
function requireNode(): void {
  if (!nodeIsOldEnough()) {
    throw new Error(
      `the Testcontainers test needs Node >= ${NODE_NEEDED.join('.')} (testcontainers 12); ` +
        `this is Node ${process.version}. Run the suite under Node 24: ` +
        '`export PATH="$(scripts/install-node.sh):$PATH"` (.ci/run does this)',
    );
  }
}

/** Resolves when the API on `socket` answers `GET /_ping` with 200. */
function ping(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping', timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

beforeAll(async () => {
  // Under an older Node the test itself fails, saying so (below); nothing to set up.
  if (!nodeIsOldEnough()) return;
  requireImageTools();
  const ms = await buildImage(TAG);
  console.log(`testcontainers: image ${TAG} ready in ${(ms / 1000).toFixed(1)} s`);

  // podman's Docker-compatible API on a socket of this test's own, until this test stops it.
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-testcontainers-'));
  const socket = join(dir, 'podman.sock');
  const conf = podmanConf(dir);
  let stderr = '';
  service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    env: { ...process.env, CONTAINERS_CONF: conf },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  service.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => ping(socket), {
    timeoutMs: 20_000,
    intervalMs: 100,
    description: 'podman system service to answer on its socket',
  }).catch((err: unknown) => {
    throw new Error(`${String(err)}; podman said: ${stderr}`);
  });
  // Read by testcontainers when it first looks for a container runtime. Ryuk, its clean-up
  // container, is an image from a registry: off here; afterAll removes the container.
  process.env['DOCKER_HOST'] = `unix://${socket}`;
  process.env['TESTCONTAINERS_RYUK_DISABLED'] = 'true';
}, 600_000);

afterAll(async () => {
  ads?.close();
  await container?.stop().catch(() => undefined);
  if (service && service.exitCode === null) {
    const exited = new Promise((resolve) => service!.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('Testcontainers starts the image; a withhold fault over the control API holds an ADS response until released', async () => {
  requireNode();
  const { GenericContainer, Wait } = await import('testcontainers');
  const [xdsPort, controlPort, inboundPort, outboundPort] = await freePorts(4);
  const started = performance.now();
  container = await new GenericContainer(`localhost/${TAG}`)
    .withNetworkMode('host')
    .withEnvironment({
      MOCK_ISTIOD_CONTROL_TOKEN: TOKEN,
      MOCK_ISTIOD_HOST: '127.0.0.1',
      MOCK_ISTIOD_CONTROL_HOST: '127.0.0.1',
    })
    .withCommand([
      'serve',
      ...['--port', String(xdsPort), '--control-port', String(controlPort)],
      ...['--inbound-port', String(inboundPort), '--outbound-port', String(outboundPort)],
      ...['--log-format', 'json'],
    ])
    .withWaitStrategy(Wait.forLogMessage('mock istiod is serving'))
    .withStartupTimeout(30_000)
    .start();
  console.log(
    `testcontainers: start() to serving in ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );

  const client = createControlClient({ baseUrl: `http://127.0.0.1:${controlPort}`, token: TOKEN });
  expect(await client.call('ready')).toEqual({ ready: true });
  const applied = await client.call('applyFault', { scenario: 'withhold', id: 'hold' });
  expect(applied).toMatchObject({ fault: { id: 'hold', state: 'active' } });

  ads = new AdsTestClient(`127.0.0.1:${xdsPort}`);
  const stream = ads.sotw();
  stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
  await waitFor(
    async () => (await client.call('state')).streams.some((s) => s.nodeId === sidecarNode().id),
    { timeoutMs: 10_000, description: 'the stream to show in /control/state' },
  );
  await expect(stream.next(1_000)).rejects.toThrow('no response within 1000 ms');

  expect(await client.call('release')).toMatchObject({ released: true });
  const response = await stream.next(10_000);
  expect(response.type_url).toBe(CLUSTER_TYPE);
  expect(response.resources.length).toBeGreaterThan(0);
  expect((await client.call('listFaults')).faults).toEqual([]);

  ads.close();
  ads = undefined;
  await container.stop();
  container = undefined;
}, 120_000);
