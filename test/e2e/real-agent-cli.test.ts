/**
 * `mock-istiod pilot-agent` as a user runs it against a running mock: the pod printed like
 * `kubectl get pod -w` as the mock withholds and releases, the real pilot-agent's own log on
 * stderr, a clean stop on SIGTERM that removes its directory, and one line for each mistake
 * a user can make (no binaries, a plaintext mock, a missing pod variable, a bad PROXY_CONFIG).
 */
import { existsSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { useCli } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';
import { POD_ENV, requireIstio } from '../support/harness/real-agent.js';

const cli = useCli();

const FREE_PORTS = ['--admin-port', '0', '--status-port', '0', '--readiness-port', '0'].concat([
  '--prometheus-port',
  '0',
]);

/** The pod's variables, and where the binaries are when the environment says so. */
function podEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...POD_ENV, ...extra };
  for (const name of ['ISTIO_BIN_DIR', 'ENVOY_BIN']) {
    const value = process.env[name];
    if (value !== undefined && !(name in env)) env[name] = value;
  }
  return env;
}

function mockFlags(mock: TestMockIstiod): string[] {
  const control = mock.addresses.control;
  if (!control) throw new Error('the mock has no control API');
  return ['--discovery-address', mock.xdsAddress, '--control-port', String(control.port)];
}

describe('mock-istiod pilot-agent', () => {
  it('prints the pod going 1/2 → 2/2 with pilot-agent its log, and stops cleanly on SIGTERM', async ({
    startMock,
  }) => {
    requireIstio();
    const istiod = await startMock({ tls: true, withholdFirst: true });
    const run = cli.start(['pilot-agent', ...FREE_PORTS, ...mockFlags(istiod)], {
      podEnv: podEnv(),
      timeoutMs: 30_000,
    });
    await waitFor(() => run.stderr().includes('Envoy proxy is NOT ready: config not received'), {
      timeoutMs: 30_000,
      description: "the real pilot-agent's NOT ready line on stderr",
    });
    const podLines = () => run.lines().filter((line) => /^(NAME|orders-v1-0) /.test(line));
    expect(podLines()).toEqual([
      'NAME          READY   STATUS    RESTARTS   AGE',
      expect.stringMatching(/^orders-v1-0 {3}1\/2 {5}Running {3}0 {10}\d+s$/) as string,
    ]);
    const started = run.lines().find((line) => line.includes('pilot-agent started'));
    const dir = (JSON.parse(started ?? '{}') as { dir?: string }).dir ?? '';
    expect(existsSync(`${dir}/var/run/secrets/tokens/istio-token`)).toBe(true);

    await istiod.control.release();
    await waitFor(() => podLines().length === 3, { timeoutMs: 20_000, description: '2/2' });
    expect(podLines()[2]).toMatch(/^orders-v1-0 {3}2\/2 {5}Running /);

    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('no binaries: one line naming the command that builds them, exit 1', async () => {
    const run = await cli.run(['pilot-agent', ...FREE_PORTS], {
      podEnv: podEnv({ ISTIO_BIN_DIR: '/nonexistent/istio' }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'mock-istiod: /nonexistent/istio/pilot-agent not found: run `npm run install-istio` ' +
        '(scripts/install-istio.sh; needs Go) or set ISTIO_BIN_DIR\n',
    );
  });

  it('a plaintext mock: one line saying pilot-agent needs serve --tls, exit 1', async ({
    startMock,
  }) => {
    requireIstio();
    const istiod = await startMock();
    const run = await cli.run(['pilot-agent', ...FREE_PORTS, ...mockFlags(istiod)], {
      podEnv: podEnv(),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^mock-istiod: the mock's xDS port ${istiod.xdsAddress} does not answer TLS with its root certificate \\(.+\\): pilot-agent needs \`mock-istiod serve --tls\``,
      ),
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a missing pod variable or a PROXY_CONFIG that is not JSON: one line, exit 2', async () => {
    const missing = await cli.run(['pilot-agent'], {
      podEnv: { POD_NAME: 'orders-v1-0', POD_NAMESPACE: 'default' },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^mock-istiod: environment variables INSTANCE_IP and SERVICE_ACCOUNT are not set \(.*\)\n$/,
    );
    const badConfig = await cli.run(['pilot-agent'], { podEnv: podEnv({ PROXY_CONFIG: '{no' }) });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toBe(
      'mock-istiod: PROXY_CONFIG: expected a JSON object of ProxyConfig fields ' +
        '(for example {"concurrency":2}), got "{no" (see: mock-istiod --help)\n',
    );
  });
});
