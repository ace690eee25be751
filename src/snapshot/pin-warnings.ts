/**
 * What the store says of a pinned version sent again with other content: a warning, served
 * all the same. Envoy applies such content (docs/envoy-facts.md, "A pinned version that
 * repeats"), yet reports the old version for it, so a test reading `version_info` alone
 * cannot tell the two contents apart.
 */
import type { SnapshotChange } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import type { Problem } from '../util/problems.js';

export function pinWarnings(changes: readonly SnapshotChange[]): Problem[] {
  return changes.flatMap((change) =>
    (change.repeated ?? []).map((r) => {
      const type = shortTypeName(r.typeUrl);
      const set = changes.length > 1 ? `set "${change.set}": ` : '';
      return r.name === undefined
        ? {
            path: `${set}versions.${type}`,
            message: `version "${r.version}" was already served with other ${type} resources; sent again with the new ones under the same version`,
          }
        : {
            path: `${set}resourceVersions.${type}.${r.name}`,
            message: `version "${r.version}" was already served for this resource with other content; sent again under the same version`,
          };
    }),
  );
}
