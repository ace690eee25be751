/**
 * An operation's refusal, as its `run` returns it and as every client throws it
 * (`CONTROL_REFUSED`, or `WAIT_TIMEOUT` for a wait that ran out).
 */
import { MockIstiodError } from '../util/errors.js';
import { formatProblems, type Problem } from '../util/problems.js';

/** HTTP statuses an operation may refuse with. */
export type RefusalStatus = 400 | 404 | 408 | 409 | 503;

/**
 * An operation's refusal: the one body every 4xx and 5xx of the control port carries,
 * `{ error, problems }` (docs/api.md), with its status. `extra` adds fields beside them (a
 * 404 for an unknown scenario lists the valid ones).
 */
export class Refusal {
  readonly problems: readonly Problem[];
  constructor(
    readonly status: RefusalStatus,
    readonly error: string,
    problems: readonly Problem[] = [],
    readonly extra: Record<string, unknown> = {},
  ) {
    this.problems = problems;
  }
}

/** A 400 for bad input: `<what>: <every problem, with its path>`. */
export function invalid(what: string, problems: readonly Problem[]): Refusal {
  return new Refusal(400, `${what}: ${formatProblems(problems)}`, problems);
}

/** `WAIT_TIMEOUT` for a 408, else `CONTROL_REFUSED`, with the answer's problems and body. */
export function refusalError(
  status: number,
  message: string,
  problems: readonly Problem[],
  operation: string | undefined,
  body: unknown,
): MockIstiodError<'CONTROL_REFUSED' | 'WAIT_TIMEOUT'> {
  if (status === 408) {
    return new MockIstiodError('WAIT_TIMEOUT', message, { problems, details: { lastValue: body } });
  }
  return new MockIstiodError('CONTROL_REFUSED', message, {
    problems,
    details: { status, operation, body },
  });
}
