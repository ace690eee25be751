import type { Problem } from '../util/problems.js';

/** Where the served resources come from, and how the last load went (`GET /debug/resources`). */
export interface ResourceStatus {
  /** Where resources come from: a path, or `api` when set through the API / library. */
  source: string;
  /** When the sets now serving were loaded. */
  loadedAt: string;
  /**
   * Warnings of the last accepted load or change: what Envoy would warm on for ever, and,
   * for the API and the library, what it would reject (NACK).
   */
  warnings: Problem[];
  /** The last failed reload, cleared by the next good one. */
  lastError: { at: string; problems: Problem[] } | undefined;
}
