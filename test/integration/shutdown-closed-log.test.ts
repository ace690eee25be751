/**
 * SIGTERM ends `mock-istiod serve` within its deadline whatever became of its log streams:
 * here the reader of its stdout and stderr goes away (as `| head` does, or a log shipper
 * restarting), so every later log write fails with EPIPE.
 */
import { once } from 'node:events';
import { expect } from 'vitest';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();

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
