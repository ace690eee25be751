/**
 * A conformance case: one scripted exchange, run once against istiod's own server and once
 * against the mock; they must leave the same transcript.
 */
import type { Exchange } from './exchange.js';

export interface ConformanceCase {
  /** The rule it checks (a heading of docs/conformance.md). */
  rule: string;
  /** What it shows, as a sentence. */
  title: string;
  /** Pushes reach every stream: such a case runs alone, after the others. */
  alone?: boolean;
  run(x: Exchange): Promise<void>;
}

export function cases(rule: string, list: Omit<ConformanceCase, 'rule'>[]): ConformanceCase[] {
  return list.map((c) => ({ ...c, rule }));
}
