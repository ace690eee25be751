/**
 * `mock-istiod agent` as a user runs it: the pod's view printed like `kubectl get pod -w` as
 * the mock withholds and then releases, pilot-agent's reason in the log, a clean stop on
 * SIGTERM, and one line for a missing input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_POD_ENV } from '../../scripts/generate-envoy-configs.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { packageRoot } from '../../src/util/package-root.js';

interface Run {
  child: ChildProcess;
  stdout: () => string[];
  stderr: () => string;
  exit: Promise<number | null>;
}

const running: ChildProcess[] = [];
let istiod: TestMockIstiod | undefined;
afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  await istiod?.close();
  istiod = undefined;
});

function agentCli(args: string[], podEnv: Record<string, string>): Run {
  const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...podEnv };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'agent', ...args], {
    cwd: packageRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout.split('\n').filter(Boolean), stderr: () => stderr, exit };
}

const FREE_PORTS = ['--status-port', '0', '--admin-port', '0', '--readiness-port', '0'];

describe('mock-istiod agent', () => {
  it('prints the pod going 1/2 → 2/2, logs the reason, and stops on SIGTERM', async () => {
    istiod = await startMockIstiod({ withholdFirst: true });
    const run = agentCli(
      [
        ...FREE_PORTS,
        ...['--prometheus-port', '0', '--discovery-address', istiod.xdsAddress],
        ...['--log-format', 'json'],
      ],
      SEED_POD_ENV,
    );
    const notReady = await waitFor(
      () => run.stdout().find((line) => line.includes('Envoy proxy is NOT ready')),
      { timeoutMs: 20_000, description: "pilot-agent's NOT ready log line" },
    );
    expect((JSON.parse(notReady) as { msg: string }).msg).toBe(
      'Envoy proxy is NOT ready: config not received from XDS server (is Istiod running?): ' +
        'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected',
    );
    const podLines = () => run.stdout().filter((line) => /^(NAME|orders-v1-0) /.test(line));
    expect(podLines()).toEqual([
      'NAME          READY   STATUS    RESTARTS   AGE',
      expect.stringMatching(/^orders-v1-0 {3}1\/2 {5}Running {3}0 {10}\d+s$/) as string,
    ]);

    istiod.release();
    await waitFor(() => podLines().length === 3, {
      timeoutMs: 20_000,
      description: 'the 2/2 line',
    });
    expect(podLines()[2]).toMatch(/^orders-v1-0 {3}2\/2 {5}Running /);

    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('a missing input: one line naming the variables, exit 2, no Envoy started', async () => {
    const run = agentCli(FREE_PORTS, { POD_NAME: 'orders-v1-0', POD_NAMESPACE: 'default' });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(
      /^mock-istiod: environment variables INSTANCE_IP and SERVICE_ACCOUNT are not set \(.*\)\n$/,
    );
    expect(run.stdout()).toEqual([]);
  });
});
