/**
 * A problem found while validating input (a resource, a file, a request body): where it is
 * (a field path such as `resources[0].filter_chains[0].filters[0].name`) and what is wrong.
 * Validation collects every problem instead of stopping at the first.
 */
export interface Problem {
  path: string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** A result that can succeed with warnings: problems that did not stop it, to be reported. */
export type ResultWithWarnings<T> =
  { ok: true; value: T; warnings: Problem[] } | { ok: false; problems: Problem[] };

export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
}
