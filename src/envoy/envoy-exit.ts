/** How an Envoy process ended, and the error for waits that it cut short. */
import { MockIstiodError } from '../util/errors.js';

export interface EnvoyExit {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be spawned at all. */
  error?: Error;
}

/**
 * The error for Envoy having exited (or never started) while something was waiting for it:
 * code `ENVOY_EXITED`, with the exit and the last log lines in `details`.
 */
export function envoyExitedError(
  exit: EnvoyExit,
  logTail: string,
): MockIstiodError<'ENVOY_EXITED'> {
  const message = `Envoy exited early (${describeExit(exit)}); last log lines:\n${logTail || '(none)'}`;
  return new MockIstiodError('ENVOY_EXITED', message, { details: { exit, logTail } });
}

export function describeExit(exit: EnvoyExit): string {
  if (exit.error) return `could not start: ${exit.error.message}`;
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}
