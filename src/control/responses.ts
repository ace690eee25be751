/**
 * The one refusal body of the control port, which every route shares: every 4xx and 5xx
 * answers `{error, problems}` — one line, and every problem with its field path (empty when
 * there is none to name) — sometimes with context beside them (the valid scenarios, the
 * endpoints). istiod's own debug views keep istiod's text answers (debug-routes.ts).
 */
import { invalid, type Refusal } from '../api/operation.js';
import type { Problem } from '../util/problems.js';
import type { ControlResponse } from './router.js';

export function refusalResponse(refusal: Refusal): ControlResponse {
  return {
    status: refusal.status,
    body: { error: refusal.error, problems: refusal.problems, ...refusal.extra },
  };
}

/** A 400 for bad input, every problem with its path. */
export function problemsResponse(what: string, problems: readonly Problem[]): ControlResponse {
  return refusalResponse(invalid(what, problems));
}

/** Any other refusal or failure: its status and line, and context beside them. */
export function errorResponse(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
): ControlResponse {
  return { status, body: { error, problems: [], ...extra } };
}

export function notFound(error: string, extra: Record<string, unknown> = {}): ControlResponse {
  return errorResponse(404, error, extra);
}
