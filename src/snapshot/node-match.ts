/**
 * Which proxies a resource set is for: a node-id glob, a `node.cluster` glob and metadata
 * values (for example `CLUSTER_ID`), all of which must match. An empty selector matches
 * every proxy.
 */
import type { ProxyIdentity } from '../core/identity.js';
import { globLengthProblem, matchesGlob } from '../util/glob.js';
import type { Problem } from '../util/problems.js';

export interface NodeMatch {
  /** Glob over the full node id (`*` any run, `?` one character; see util/glob.ts). */
  nodeId?: string;
  /** Glob over `node.cluster`. */
  cluster?: string;
  /** Metadata keys and the exact string values they must have. */
  metadata?: Record<string, string>;
}

export function matchesNode(match: NodeMatch | undefined, proxy: ProxyIdentity): boolean {
  if (!match) return true;
  if (!matchesGlob(match.nodeId, proxy.nodeId)) return false;
  if (!matchesGlob(match.cluster, proxy.cluster)) return false;
  for (const [key, value] of Object.entries(match.metadata ?? {})) {
    if (proxy.metadata[key] !== value) return false;
  }
  return true;
}

/** Validates a selector given as JSON, reporting every problem under `path`. */
export function parseNodeMatch(
  value: unknown,
  path: string,
  problems: Problem[],
): NodeMatch | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ path, message: 'expected an object with nodeId, cluster and/or metadata' });
    return undefined;
  }
  const match: NodeMatch = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'nodeId' || key === 'cluster') {
      const problem =
        typeof field === 'string' ? globLengthProblem(field) : 'expected a string (a glob)';
      if (problem === undefined) match[key] = field as string;
      else problems.push({ path: `${path}.${key}`, message: problem });
    } else if (key === 'metadata') {
      const ok = typeof field === 'object' && field !== null && !Array.isArray(field);
      const entries: [string, unknown][] = ok
        ? Object.entries(field as Record<string, unknown>)
        : [];
      if (!ok || entries.some(([, v]) => typeof v !== 'string')) {
        problems.push({ path: `${path}.metadata`, message: 'expected an object of string values' });
      } else match.metadata = Object.fromEntries(entries) as Record<string, string>;
    } else {
      problems.push({
        path: `${path}.${key}`,
        message: 'unknown selector field; use nodeId, cluster or metadata',
      });
    }
  }
  return match;
}
