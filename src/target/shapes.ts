/**
 * The rooms' values shaped into the control API's answers (a resource set in canonical JSON,
 * changes by short type name, a token request checked as the CA checks it), for the one
 * implementation of the operations (operation-target.ts).
 */
import type { SetInfo, TokenFields } from '../api/answers.js';
import { resolveTokenRequest, type TokenRequest } from '../ca/service-account-token.js';
import type { Snapshot, SnapshotChange } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import { resourceJson } from '../debug/config-dump.js';
import type { StoredSet } from '../snapshot/store.js';
import type { Problem, Result } from '../util/problems.js';

export const KEEPS_SERVING = 'invalid resources (the last good set keeps serving)';

export function describeSets(sets: readonly StoredSet[]): SetInfo[] {
  return sets.map((set) => ({
    name: set.name,
    ...(set.match ? { match: set.match } : {}),
    version: set.snapshot.version,
    types: typeVersions(set.snapshot),
    resources: set.snapshot
      .typeUrls()
      .flatMap((t) => [...set.snapshot.get(t).resources.values()].map(resourceJson)),
  }));
}

/** The version of each type a snapshot holds, by istiod's short names. */
export function typeVersions(snapshot: Snapshot): Record<string, string> {
  return Object.fromEntries(
    snapshot.typeUrls().map((t) => [shortTypeName(t), snapshot.get(t).version]),
  );
}

/** Which types changed in each set, by istiod's short names. */
export function changesBySet(changes: readonly SnapshotChange[]) {
  return changes.map((c) => ({ set: c.set, changed: c.changed.map(shortTypeName) }));
}

/**
 * `{namespace, serviceAccount, audience | audiences, ttlSeconds}` → a checked token request,
 * with every problem: fields it does not know, and each value the CA refuses.
 */
export function tokenRequest(fields: TokenFields): Result<TokenRequest> {
  const { namespace, serviceAccount, audience, audiences, ttlSeconds, ...rest } = fields;
  const problems: Problem[] = Object.keys(rest).map((key) => ({
    path: key,
    message: 'unknown field (expected namespace, serviceAccount, audience(s), ttlSeconds)',
  }));
  if (audience !== undefined && audiences !== undefined) {
    problems.push({ path: 'audience', message: 'give audience or audiences, not both' });
  }
  const given = {
    namespace,
    serviceAccount,
    audiences: audience !== undefined ? [audience] : audiences,
    ttlSeconds,
  };
  const partial = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  // The CA checks each value's type and range (resolveTokenRequest).
  const checked = resolveTokenRequest(partial);
  if (!checked.ok) problems.push(...checked.problems);
  return problems.length > 0 || !checked.ok ? { ok: false, problems } : checked;
}
