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
  return toJson(type, type.decode(resource.value)) as ResourceJson;
}

/**
 * What a resource names depends on its bytes alone, so it is kept by content version: a push
 * that changes one of 10,000 clusters decodes one cluster, not all of them (decoding to JSON
 * is most of the cost of a check). Bounded, as the snapshot's subset bodies are.
 */
const MAX_CACHED_REFERENCES = 100_000;
const cachedReferences = new Map<string, readonly Reference[]>();
const NO_REFERENCES: readonly Reference[] = Object.freeze([]);

function referencesOf(type: ResourceType, resource: NamedResource): readonly Reference[] {
  const key = `${resource.typeUrl}\0${resource.version}`;
  let refs = cachedReferences.get(key);
  if (!refs) {
    const found = type.references?.(decoded(resource)) ?? [];
    refs = found.length > 0 ? found : NO_REFERENCES;
    if (cachedReferences.size >= MAX_CACHED_REFERENCES) cachedReferences.clear();
    cachedReferences.set(key, refs);
  }
  return refs;
}

/** `where` names a resource for the user (a file and index, or a set name). */
export function checkReferences(
  set: PackedSet,
  where: (typeUrl: string, name: string) => string,
): ReferenceReport {
  const report: ReferenceReport = { errors: [], warnings: [] };
  for (const type of RESOURCE_TYPES) {
    if (!type.references) continue;
    for (const resource of set.get(type.typeUrl)?.values() ?? []) {
      const at = where(type.typeUrl, resource.name);
      for (const ref of referencesOf(type, resource)) {
        if (set.get(ref.typeUrl)?.has(ref.name)) continue;
        const problem = { path: ref.path ? `${at}.${ref.path}` : at, message: ref.message };
        (ref.missing === 'nack' ? report.errors : report.warnings).push(problem);
      }
    }
  }
  return report;
}
