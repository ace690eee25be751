/**
 * What the relay may change in istiod's responses on their way down: with
 * `relayDropUnknownExtensions`, the extensions this Envoy does not know (Istio's own build's
 * filters: `istio.metadata_exchange`, `istio.stats`, …) are dropped, as `generate` and the
 * import drop them, so that the Envoy of this machine accepts istiod's configuration. A
 * resource with none is passed as it came; a changed one is encoded again.
 */
import type { NamedResource } from '../core/snapshot.js';
import { pruneUnknownExtensions } from '../import/rewrite-extensions.js';
import { emptyReport } from '../import/report.js';
import type { RelayTransform } from '../server/relay-upstream.js';
import { contentVersion } from '../snapshot/resource-set.js';
import { packAnyJson, toJson } from '../xds/json.js';
import { envoyRoot } from '../xds/protos.js';

export function relayTransform(dropUnknownExtensions: boolean): RelayTransform | undefined {
  if (!dropUnknownExtensions) return undefined;
  return (typeUrl, resources) => {
    let changed = false;
    const out = resources.map((resource) => {
      const rewritten = withoutUnknownExtensions(typeUrl, resource);
      if (rewritten !== resource) changed = true;
      return rewritten;
    });
    return changed ? out : undefined;
  };
}

function withoutUnknownExtensions(typeUrl: string, resource: NamedResource): NamedResource {
  const type = envoyRoot().lookupType(typeUrl.slice(typeUrl.lastIndexOf('/') + 1));
  const json = { '@type': typeUrl, ...(toJson(type, type.decode(resource.value)) as object) };
  const before = JSON.stringify(json);
  pruneUnknownExtensions(json, resource.name, true, emptyReport());
  if (JSON.stringify(json) === before) return resource;
  const packed = packAnyJson(json);
  if (!packed.ok) return resource;
  const { bytes } = packed.value;
  return { ...resource, value: bytes, version: contentVersion(bytes) };
}
