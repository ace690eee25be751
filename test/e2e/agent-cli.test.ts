/**
 * `mock-istiod agent` as a user runs it: the pod's view printed like `kubectl get pod -w` as
 * the mock withholds and then releases, pilot-agent's reason in the log, a clean stop on
 * SIGTERM, and one line for a missing input.
 */
import { describe, expect } from 'vitest';
import { SEED_POD_ENV } from '../../scripts/generate-envoy-configs.js';
import { waitFor } from '../../src/util/wait.js';
import { useCli } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();

const FREE_PORTS = ['--status-port', '0', '--admin-port', '0', '--readiness-port', '0'];

describe('mock-istiod agent', () => {
  it('prints the pod going 1/2 → 2/2, logs the reason, and stops on SIGTERM', async ({
    startMock,
  }) => {
    const istiod = await startMock({ withholdFirst: true });
    const run = cli.start(
      [
        'agent',
        ...FREE_PORTS,
        ...['--prometheus-port', '0', '--discovery-address', istiod.xdsAddress],
        ...['--log-format', 'json'],
      ],
      { podEnv: SEED_POD_ENV },
    );
    const notReady = await waitFor(
      () => run.lines().find((line) => line.includes('Envoy proxy is NOT ready')),
      { timeoutMs: 20_000, description: "pilot-agent's NOT ready log line" },
    );
    expect((JSON.parse(notReady) as { msg: string }).msg).toBe(
      'Envoy proxy is NOT ready: config not received from XDS server (is Istiod running?): ' +
        'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected',
    );
    const podLines = () => run.lines().filter((line) => /^(NAME|orders-v1-0) /.test(line));
    expect(podLines()).toEqual([
      'NAME          READY   STATUS    RESTARTS   AGE',
      expect.stringMatching(/^orders-v1-0 {3}1\/2 {5}Running {3}0 {10}\d+s$/) as string,
    ]);

    await istiod.control.release();
    await waitFor(() => podLines().length === 3, {
      timeoutMs: 20_000,
      description: 'the 2/2 line',
    });
    expect(podLines()[2]).toMatch(/^orders-v1-0 {3}2\/2 {5}Running /);

    run.child.kill('SIGTERM');
    expect(await run.exited()).toBe(0);
  });

  it('a missing input: one line naming the variables, exit 2, no Envoy started', async () => {
    const podEnv = { POD_NAME: 'orders-v1-0', POD_NAMESPACE: 'default' };
    const run = await cli.run(['agent', ...FREE_PORTS], { podEnv });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^mock-istiod: environment variables INSTANCE_IP and SERVICE_ACCOUNT are not set \(.*\)\n$/,
    );
    expect(run.stdout.split('\n').filter(Boolean)).toEqual([]);
  });
});
