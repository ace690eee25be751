/**
 * The image from a test suite, the Testcontainers way (docs/container.md, "From a test suite:
 * Testcontainers"): `testcontainers` 12 for Node starts the image built by
 * scripts/build-image.sh through podman's Docker-compatible API socket (a `podman system
 * service` this test starts, with runc and explicit ulimits). The test runs the program the
 * doc shows, examples/testcontainers.ts (the docs tests check the block is that file): it
 * waits for the image's log line, and a fault applied over the control API (`withhold`) holds
 * an ADS client's response until it is released. testcontainers 12 needs Node 22.22 or later: under an older Node this test fails,
 * saying how to run it under Node 24.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import {
  buildImage,
  E2E_IMAGE_TAG,
  podmanConf,
  requireImageTools,
} from '../support/harness/image.js';

const TAG = E2E_IMAGE_TAG;
/** testcontainers 12's own `engines` (it does not load on older Node). */
const NODE_NEEDED = [22, 22] as const;

let dir: string | undefined;
let service: ChildProcess | undefined;
let dockerHost = '';
let example: ChildProcess | undefined;
const EXAMPLE = 'examples/testcontainers.ts';
const EXAMPLE_TIMEOUT_MS = 90_000;

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

/** `podman <args>`: its stdout, or a rejection with its stderr. */
function podman(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('podman', args, { timeout: 30_000 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`podman ${args.join(' ')}: ${stderr || err.message}`))
        : resolve(stdout),
    );
  });
}

/** The ids of the containers (running or not) made from `image`. */
async function containersOf(image: string): Promise<string[]> {
  const out = await podman(['ps', '--all', '--quiet', '--filter', `ancestor=${image}`]);
  return out.split('\n').filter((id) => id.trim() !== '');
}

/** Runs the example with tsx, as a user runs a script; its exit code and all it printed. */
function runExample(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    example = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => example?.kill('SIGKILL'), EXAMPLE_TIMEOUT_MS);
    example.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    example.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    example.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
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
  // Read by testcontainers in the example when it looks for a container runtime. Ryuk, its
  // clean-up container, is an image from a registry: off there; afterAll removes what is left.
  dockerHost = `unix://${socket}`;
}, 600_000);

afterAll(async () => {
  if (example && example.exitCode === null && example.signalCode === null) {
    const exited = new Promise((resolve) => example!.once('exit', resolve));
    example.kill('SIGKILL');
    await exited;
  }
  // A container the example did not stop (it failed or was killed): removed here.
  const left = await containersOf(`localhost/${TAG}`).catch(() => []);
  if (left.length > 0) await podman(['rm', '--force', ...left]).catch(() => undefined);
  if (service && service.exitCode === null) {
    const exited = new Promise((resolve) => service!.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('examples/testcontainers.ts (docs/container.md’s block): the image starts; a withhold fault holds an ADS response until released', async () => {
  requireNode();
  const started = performance.now();
  const run = await runExample({
    ...process.env,
    DOCKER_HOST: dockerHost,
    TESTCONTAINERS_RYUK_DISABLED: 'true',
    MOCK_ISTIOD_IMAGE: `localhost/${TAG}`,
  });
  console.log(
    `testcontainers: the example ran in ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
  expect(run.output).toContain('withheld: no CDS response within 1 s');
  expect(run.output).toMatch(/released: CDS version \S+, [1-9]\d* clusters/);
  expect(run.code).toBe(0);
  // The example stopped its container itself.
  expect(await containersOf(`localhost/${TAG}`)).toEqual([]);
}, 120_000);
