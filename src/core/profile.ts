/**
 * Whose rules the xDS sessions follow where istiod departs from the xDS protocol document
 * (docs/profiles.md):
 *
 * - `istiod`, the default: istiod's, case for case against istiod-ref (docs/conformance.md).
 * - `xds-spec`: the protocol document's and go-control-plane's, for xDS clients not built for
 *   istiod: names honoured for every type, a legacy wildcard only until a name is asked for,
 *   removals in `removed_resources` for every type, delta responses with only what changed
 *   and per-resource versions, and a version per type.
 */
export type Profile = 'istiod' | 'xds-spec';

export const PROFILES: readonly Profile[] = ['istiod', 'xds-spec'];

export function isProfile(value: unknown): value is Profile {
  return PROFILES.includes(value as Profile);
}
