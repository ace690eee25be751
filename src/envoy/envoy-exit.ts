/** How an Envoy process ended, and the error for waits that it cut short. */

export interface EnvoyExit {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be spawned at all. */
  error?: Error;
}

/** Envoy exited (or never started) while something was waiting for it. */
export class EnvoyExitedError extends Error {
  constructor(
    readonly exit: EnvoyExit,
    readonly logTail: string,
  ) {
    super(`Envoy exited early (${describeExit(exit)}); last log lines:\n${logTail || '(none)'}`);
    this.name = 'EnvoyExitedError';
  }
}

export function describeExit(exit: EnvoyExit): string {
  if (exit.error) return `could not start: ${exit.error.message}`;
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}
