/**
 * The answers every route file shares: 400 with every problem and its field path, and 404
 * with what was not found.
 */
import { formatProblems, type Problem } from '../util/problems.js';
import type { ControlResponse } from './router.js';

export function problemsResponse(what: string, problems: readonly Problem[]): ControlResponse {
  return { status: 400, body: { error: `${what}: ${formatProblems(problems)}`, problems } };
}

export function notFound(error: string, extra: Record<string, unknown> = {}): ControlResponse {
  return { status: 404, body: { error, ...extra } };
}
