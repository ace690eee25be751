/**
 * The bound on a graceful shutdown, held on every path. A timer on the event loop ends the
 * process when the graceful part overruns (streams stuck, a journal that will not flush). A
 * timer cannot fire while the main thread itself is blocked (a synchronous write to a log
 * pipe that nobody reads, an exit handler that never returns), so a watchdog on a thread of
 * its own kills the process shortly after, whatever the main thread is doing.
 */
import { Worker } from 'node:worker_threads';

/** After the deadline, how long the event loop gets to exit before the watchdog kills it. */
export const WATCHDOG_GRACE_MS = 1_000;

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.ms);
`;

/**
 * Arms the deadline: after `ms`, `onDeadline` runs (it should exit); after `ms` plus
 * `WATCHDOG_GRACE_MS`, the process is killed. Neither keeps the process alive.
 */
export function armShutdownDeadline(ms: number, onDeadline: () => void): void {
  setTimeout(onDeadline, ms).unref();
  try {
    const worker = new Worker(WATCHDOG, {
      eval: true,
      // None of the parent's flags: with a loader among them (tsx, as the tests run the CLI)
      // the watchdog never started while the main thread was blocked.
      execArgv: [],
      workerData: { pid: process.pid, ms: ms + WATCHDOG_GRACE_MS },
      stdout: true,
      stderr: true,
    });
    worker.on('error', () => undefined);
    worker.unref();
  } catch {
    // No thread to be had: the timer above is the bound.
  }
}
