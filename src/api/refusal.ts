/**
 * An operation's refusal, as its `run` returns it and as every client throws it
 * (`CONTROL_REFUSED`).
 */
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
