/**
 * Cross-reference checks over a resource set, the way Envoy will see it. What each type
 * names is in its descriptor (src/core/types/): a listener's inline route naming a cluster
 * that is not in the set (Envoy rejects it: `unknown cluster`), an EDS cluster with no
 * `ClusterLoadAssignment` (it warms for ever), a listener asking RDS for a route
 * configuration that is not there (the listener warms for ever). The resources are read in
 * canonical JSON (normalised by decoding the packed bytes), so camelCase input is covered too.
 */
import type { NamedResource, PackedSet } from '../core/snapshot.js';
import { RESOURCE_TYPES } from '../core/types/registry.js';
import type { Reference, ResourceJson, ResourceType } from '../core/types/resource-type.js';
import type { Problem } from '../util/problems.js';
import { decodeOnly } from '../xds/codecs.js';
import { toJson } from '../xds/json.js';
import { findMessageType } from '../xds/protos.js';
import { messageNameOf } from '../xds/type-urls.js';

export interface ReferenceReport {
  /** Envoy would reject the set (NACK). */
  errors: Problem[];
  /** Envoy would accept it but wait for ever (warming). */
  warnings: Problem[];
}

function decoded(resource: NamedResource): ResourceJson {
  const type = findMessageType(messageNameOf(resource.typeUrl) ?? '');
  if (!type) return {};
  return toJson(type, decodeOnly(type, resource.value)) as ResourceJson;
}

/**
 * What a resource names depends on its bytes alone, so it is kept by content version: a push
 * that changes one of 10,000 clusters decodes one cluster, not all of them (decoding to JSON
 * is most of the cost of a check). Kept in two generations: a check moves what it uses into
 * the young one; once the young one holds several times what a check uses, it becomes the
 * old one and the old one goes. What the served sets use stays; versions no set holds any
 * more age out, so memory follows the size of the sets, not the number of pushes (a single
 * bounded map grew by every changed resource of every push until its bound: the soak in
 * docs/RELIABILITY.md found it).
 */
const MIN_GENERATION = 1_000;
const GENERATION_FACTOR = 4;
let young = new Map<string, readonly Reference[]>();
let old = new Map<string, readonly Reference[]>();
const NO_REFERENCES: readonly Reference[] = Object.freeze([]);

function referencesOf(type: ResourceType, resource: NamedResource): readonly Reference[] {
  const key = `${resource.typeUrl}\0${resource.version}`;
  let refs = young.get(key);
  if (refs) return refs;
  refs = old.get(key);
  if (!refs) {
    const found = type.references?.(decoded(resource)) ?? [];
    refs = found.length > 0 ? found : NO_REFERENCES;
  }
  young.set(key, refs);
  return refs;
}

/** After a check that looked at `used` resources: the young generation ages when full. */
function age(used: number): void {
  if (young.size < Math.max(MIN_GENERATION, GENERATION_FACTOR * used)) return;
  old = young;
  young = new Map();
}

/** How many resources' references are cached (both generations; for tests). */
export function cachedReferenceCount(): number {
  return young.size + old.size;
}

/** `where` names a resource for the user (a file and index, or a set name). */
export function checkReferences(
  set: PackedSet,
  where: (typeUrl: string, name: string) => string,
): ReferenceReport {
  const report: ReferenceReport = { errors: [], warnings: [] };
  let used = 0;
  for (const type of RESOURCE_TYPES) {
    if (!type.references) continue;
    for (const resource of set.get(type.typeUrl)?.values() ?? []) {
      used += 1;
      const at = where(type.typeUrl, resource.name);
      for (const ref of referencesOf(type, resource)) {
        if (set.get(ref.typeUrl)?.has(ref.name)) continue;
        const problem = { path: ref.path ? `${at}.${ref.path}` : at, message: ref.message };
        (ref.missing === 'nack' ? report.errors : report.warnings).push(problem);
      }
    }
  }
  age(used);
  return report;
}
