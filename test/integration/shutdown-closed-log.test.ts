/**
 * SIGTERM ends `mock-istiod serve` within its deadline whatever became of its log streams:
 * here the reader of its stdout and stderr goes away (as `| head` does, or a log shipper
 * restarting), so every later log write fails with EPIPE; and a main thread that is blocked
 * past the deadline is killed from a thread of its own.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();

const DEADLINE_MODULE = fileURLToPath(
  new URL('../../src/cli/shutdown-deadline.ts', import.meta.url),
);

/** docs/RELIABILITY.md#stopping: the graceful part's bound (SHUTDOWN_BOUND_MS in serve.ts). */
const SHUTDOWN_BOUND_MS = 10_000;

it('SIGTERM with the log pipe closed ends the process, well within the shutdown deadline', async () => {
  const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS]);
  await waitForServing(run);
  const exit = once(run.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  run.child.stdout?.destroy();
  run.child.stderr?.destroy();
  const started = Date.now();
  run.child.kill('SIGTERM');
  const [code, signal] = await Promise.race([
    exit,
    new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`still running ${SHUTDOWN_BOUND_MS} ms after SIGTERM`)),
        SHUTDOWN_BOUND_MS,
      ).unref(),
    ),
  ]);
  // Nothing was stuck: the graceful shutdown finished, not the deadline's exit.
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(SHUTDOWN_BOUND_MS);
});

it('past the deadline, a main thread that is blocked (no timer can fire) is killed by the watchdog', async () => {
  // The deadline's own exit is given nothing to do, and the main thread then spins for good:
  // only the watchdog thread can end the process.
  const script = `
    const { armShutdownDeadline, WATCHDOG_GRACE_MS } = await import(${JSON.stringify(DEADLINE_MODULE)});
    armShutdownDeadline(200, () => undefined);
    process.stdout.write(String(WATCHDOG_GRACE_MS) + '\\n');
    for (;;);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    const started = Date.now();
    const [code, signal] = await Promise.race([
      exit,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the watchdog did not end the process')), 15_000).unref(),
      ),
    ]);
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(15_000);
  } finally {
    child.kill('SIGKILL');
  }
});
