/**
 * The one error class of the package, with a closed set of codes. User mistakes (bad
 * options, bad resources, a port in use) carry a message meant to be printed as one line.
 */
import { formatProblems, type Problem } from '../util/problems.js';

export type MockIstiodErrorCode =
  | 'INVALID_OPTIONS'
  | 'INVALID_RESOURCES'
  | 'INVALID_FAULT'
  | 'LISTEN_FAILED'
  | 'NOT_STARTED'
  | 'CLOSED';

export class MockIstiodError extends Error {
  constructor(
    readonly code: MockIstiodErrorCode,
    message: string,
    readonly problems: readonly Problem[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MockIstiodError';
  }

  static fromProblems(code: MockIstiodErrorCode, what: string, problems: readonly Problem[]) {
    return new MockIstiodError(code, `${what}: ${formatProblems(problems)}`, problems);
  }
}
