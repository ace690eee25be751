/**
 * The container image (`npm run image`, docs/container.md): built from scratch by
 * scripts/build-image.sh, run by podman with `--network=host`, serving a real Envoy on the
 * host until it is LIVE; a fault applied through the control API reaches that Envoy; the
 * container stops cleanly on SIGTERM. Without podman, buildah, mmdebstrap or runc the test
 * fails, saying how to install them.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../src/envoy/envoy-process.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import {
  buildImage,
  E2E_IMAGE_TAG,
  requireImageTools,
  usePodman,
} from '../support/harness/image.js';

const TAG = E2E_IMAGE_TAG;
const TOKEN = 'image-test-token';
const NAME = `mock-istiod-e2e-${process.pid}`;

let podman: ReturnType<typeof usePodman>;
let envoy: EnvoyProcess | undefined;

beforeAll(async () => {
  requireImageTools();
  podman = usePodman();
  const ms = await buildImage(TAG);
  console.log(`image: built ${TAG} in ${(ms / 1000).toFixed(1)} s`);
}, 600_000);

afterAll(async () => {
  await envoy?.stop();
  await podman?.podman(['rm', '--force', '--ignore', NAME]).catch(() => undefined);
  podman?.dispose();
});

async function control(port: number, method: string, path: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the image runs as a non-root user, serves on every interface by default and checks its health', async () => {
  const [config] = JSON.parse(await podman.podman(['image', 'inspect', TAG])) as {
    Config: { User: string; Env: string[]; ExposedPorts: Record<string, unknown> };
    Healthcheck?: { Test: string[] };
  }[];
  expect(config!.Config.User).toBe('10001:10001');
  expect(config!.Config.Env).toEqual(
    expect.arrayContaining(['MOCK_ISTIOD_HOST=0.0.0.0', 'MOCK_ISTIOD_CONTROL_HOST=0.0.0.0']),
  );
  expect(Object.keys(config!.Config.ExposedPorts).sort()).toEqual(['15012/tcp', '15014/tcp']);
  expect(config!.Healthcheck?.Test.join(' ')).toContain('mock-istiod-healthcheck.mjs');
  // Off loopback the control API needs a token: without one the container says so and exits.
  const refused = await podman
    .podman(['run', '--rm', '--network=host', TAG, 'serve', '--port', '0', '--control-port', '0'])
    .then(
      () => '',
      (err: { stderr?: string }) => err.stderr ?? '',
    );
  expect(refused).toContain('without a token');
});

test('serves a real Envoy on the host to LIVE, takes a fault through the control API, stops on SIGTERM', async () => {
  const [xdsPort, controlPort, inboundPort, outboundPort] = await freePorts(4);
  const started = performance.now();
  // Loopback only in tests: the flags and variables are the CLI's (here one of each).
  await podman.podman([
    'run',
    '--detach',
    '--name',
    NAME,
    '--network=host',
    '--env',
    `MOCK_ISTIOD_CONTROL_TOKEN=${TOKEN}`,
    '--env',
    'MOCK_ISTIOD_HOST=127.0.0.1',
    '--env',
    `MOCK_ISTIOD_CONTROL_PORT=${controlPort}`,
    TAG,
    'serve',
    ...['--port', String(xdsPort), '--control-host', '127.0.0.1'],
    ...['--inbound-port', String(inboundPort), '--outbound-port', String(outboundPort)],
    ...['--log-format', 'json'],
  ]);
  await waitFor(
    async () =>
      (await control(controlPort!, 'GET', '/ready').catch(() => undefined))?.status === 200,
    { timeoutMs: 30_000, intervalMs: 50, description: 'the container to answer /ready' },
  );
  console.log(`image: run to serving in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  // The image's own HEALTHCHECK, run once by hand (podman schedules it with systemd timers).
  await expect(podman.podman(['healthcheck', 'run', NAME])).resolves.toBeDefined();
  const unauthorized = await fetch(`http://127.0.0.1:${controlPort}/control/state`);
  expect(unauthorized.status).toBe(401);

  envoy = await startEnvoy({
    bootstrap: makeSidecarBootstrap({ discoveryPort: xdsPort, adminPort: 0, xdsMode: 'sotw' }),
  });
  await envoy.waitForLive({ timeoutMs: 20_000 });
  const listeners = (await envoy.dynamicListeners()).map((l) => l.name);
  expect(listeners).toEqual(expect.arrayContaining(['virtualInbound', 'virtualOutbound']));

  const added = await control(controlPort!, 'POST', '/control/faults', {
    scenario: 'down',
    id: 'outage',
  });
  expect(added).toMatchObject({ status: 201, body: { fault: { id: 'outage', state: 'active' } } });
  await envoy.waitForStat('control_plane.connected_state', (v) => v === 0, { timeoutMs: 15_000 });
  expect(await envoy.ready()).toEqual({ status: 200, body: 'LIVE' });
  expect((await control(controlPort!, 'DELETE', '/control/faults/outage')).status).toBe(200);
  await envoy.waitForStat('control_plane.connected_state', (v) => v === 1, { timeoutMs: 15_000 });

  await podman.podman(['stop', '--time', '10', NAME]);
  const exit = await podman.podman(['inspect', '--format', '{{.State.ExitCode}}', NAME]);
  expect(exit.trim()).toBe('0');
  const logs = await podman.podman(['logs', NAME]);
  expect(logs).toContain('mock istiod is serving');
}, 120_000);

test("the image's Envoy (shipped zstd-compressed) is unpacked on first use and validates a bootstrap", async () => {
  const pod = [
    'POD_NAME=p',
    'POD_NAMESPACE=default',
    'INSTANCE_IP=127.0.0.1',
    'SERVICE_ACCOUNT=sa',
  ];
  // One container, two runs of the real Envoy: the first unpacks it, the second reuses it.
  const script = [
    "const { execFileSync } = require('node:child_process');",
    "const { statSync } = require('node:fs');",
    'const cli = "/usr/local/bin/mock-istiod";',
    'const runs = [0, 1].map(() => { const t = performance.now();',
    "  execFileSync(cli, ['bootstrap', '--validate'], { stdio: ['ignore', 'ignore', 'pipe'] });",
    '  return Math.round(performance.now() - t); });',
    "const dir = '/home/mock-istiod/.cache/mock-istiod/envoy-unpacked';",
    "const [hash] = require('node:fs').readdirSync(dir);",
    "console.log(JSON.stringify({ runs, mode: statSync(dir + '/' + hash + '/envoy').mode & 0o777,",
    "  files: require('node:fs').readdirSync(dir + '/' + hash) }));",
  ].join('\n');
  const out = await podman.podman([
    'run',
    '--rm',
    '--network=host',
    ...pod.flatMap((kv) => ['--env', kv]),
    '--entrypoint',
    '/usr/local/bin/node',
    TAG,
    '-e',
    script,
  ]);
  const report = JSON.parse(out.trim().split('\n').at(-1)!) as {
    runs: number[];
    mode: number;
    files: string[];
  };
  expect(report.mode).toBe(0o755);
  expect(report.files).toEqual(['envoy']);
  console.log(
    `image: bootstrap --validate with Envoy unpacked on first use ${report.runs[0]} ms, reused ${report.runs[1]} ms`,
  );
}, 60_000);
