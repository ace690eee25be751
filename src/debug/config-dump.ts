/**
 * `/debug/config_dump?proxyID=`: what a proxy was sent, in the shape of Envoy's admin
 * `config_dump` (the sections and order istiod uses: bootstrap, clusters, [endpoints],
 * listeners, scoped routes, routes, secrets, ECDS; each type's from its descriptor). Resources are rendered as canonical
 * proto3 JSON with the .proto field names, as Envoy prints them, so the two dumps can be
 * compared side by side. istiod prints the same structure with lowerCamelCase names.
 */
import type { NamedResource } from '../core/snapshot.js';
import { toJson } from '../xds/json.js';
import { findMessageType } from '../xds/protos.js';
import { RESOURCE_TYPES, resourceType } from '../core/types/registry.js';
import type { ConfigDumpSection } from '../core/types/resource-type.js';
import { ADMIN_TYPE_PREFIX, messageNameOf } from '../xds/type-urls.js';
import type { SentType } from '../journal/sent-resources.js';

type Json = Record<string, unknown>;

/** One resource as `{ "@type": …, …fields }`; bytes of an unknown type stay base64. */
export function resourceJson(resource: NamedResource): Json {
  const type = findMessageType(messageNameOf(resource.typeUrl) ?? '');
  if (!type) {
    return { '@type': resource.typeUrl, value: Buffer.from(resource.value).toString('base64') };
  }
  const json = toJson(type, type.decode(resource.value)) as Json;
  return { '@type': resource.typeUrl, ...json };
}

/** The resources a response carried, in the order sent. */
export function sentResources(sent: SentType | undefined): NamedResource[] {
  if (!sent) return [];
  const { resources } = sent.snapshot;
  if (!sent.names) return [...resources.values()];
  return sent.names.flatMap((name) => resources.get(name) ?? []);
}

/** A resource as a dump shows it: its JSON, less what its type says must not leave the mock. */
function shownJson(resource: NamedResource): Json {
  const json = resourceJson(resource);
  return resourceType(resource.typeUrl)?.configDump?.redact?.(json) ?? json;
}

function entries(
  sent: SentType | undefined,
  entry: (resource: Json, resourceName: string, common: Json) => Json,
): Json[] | undefined {
  const list = sentResources(sent).map((resource) =>
    entry(shownJson(resource), resource.name, {
      version_info: sent?.version,
      last_updated: sent?.at.toISOString(),
    }),
  );
  return list.length > 0 ? list : undefined;
}

function section(name: string, fields: Json): Json {
  const out: Json = { '@type': `${ADMIN_TYPE_PREFIX}${name}` };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

export interface ConfigDumpOptions {
  /** `?include_eds`: add the endpoints section (istiod leaves it out by default). */
  includeEds?: boolean;
}

/** One type's section, shaped as its descriptor says (empty when its groups are not known). */
function typeSection(dump: ConfigDumpSection, sent: SentType | undefined) {
  if (dump.grouped) return section(dump.section, {});
  return section(dump.section, {
    version_info: dump.versioned ? sent?.version : undefined,
    [dump.list]: entries(sent, (resource, name, common) => {
      const body = { [dump.entry]: resource };
      const state = dump.activeState
        ? { active_state: { ...common, ...body } }
        : { ...common, ...body };
      return dump.named ? { name, ...state } : state;
    }),
  });
}

/** The full dump for one stream, in the order Envoy and istiod print the sections. */
export function buildConfigDump(
  sent: ReadonlyMap<string, SentType>,
  options: ConfigDumpOptions = {},
): { configs: Json[] } {
  const typed = RESOURCE_TYPES.flatMap((type) => {
    const dump = type.configDump;
    if (!dump || (dump.optIn && !options.includeEds)) return [];
    return [{ rank: dump.rank, json: typeSection(dump, sent.get(type.typeUrl)) }];
  });
  // The bootstrap's section comes first, empty: the mock does not know the proxy's.
  const bootstrap = { rank: 0, json: section('BootstrapConfigDump', {}) };
  return { configs: [bootstrap, ...typed].sort((a, b) => a.rank - b.rank).map((s) => s.json) };
}

/** `?types=cds,lds`: the bare resources of the listed types, in that order. */
export function buildTypedDump(
  sent: ReadonlyMap<string, SentType>,
  typeUrls: readonly string[],
): { configs: Json[] } {
  const configs = typeUrls.flatMap((typeUrl) => sentResources(sent.get(typeUrl)).map(shownJson));
  return { configs };
}
