/**
 * The resource types the mock knows, one line each, and every table derived from them.
 * To add a type: write its descriptor beside this file (see resource-type.ts) and list it
 * here; nothing else changes (docs/architecture.md).
 */
import type { Problem, Result } from '../../util/problems.js';
import { TYPE_PREFIX } from '../../xds/type-urls.js';
import { clusterType } from './cluster.js';
import { endpointType } from './endpoint.js';
import { extensionConfigType } from './extension-config.js';
import { listenerType } from './listener.js';
import type { ResourceJson, ResourceType } from './resource-type.js';
import { routeType } from './route.js';
import { scopedRouteType } from './scoped-route.js';
import { secretType } from './secret.js';

/** In the order istiod lists its short names (and istioctl its columns). */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  clusterType,
  listenerType,
  endpointType,
  routeType,
  secretType,
  extensionConfigType,
  scopedRouteType,
];

const byUrl = new Map(RESOURCE_TYPES.map((t) => [t.typeUrl, t]));
const byShortName = new Map(RESOURCE_TYPES.map((t) => [t.shortName, t]));
const bySection = new Map(
  RESOURCE_TYPES.flatMap((t) => (t.configDump ? [[t.configDump.section, t] as const] : [])),
);

/** The descriptor of a type URL, when the mock knows the type. */
export function resourceType(typeUrl: string): ResourceType | undefined {
  return byUrl.get(typeUrl);
}

/** The type whose resources a `config_dump` section lists (`ClustersConfigDump`: CDS). */
export function configDumpType(section: string): ResourceType | undefined {
  return bySection.get(section);
}

/** The known types that have `rank` defined, sorted by it. */
export function rankedTypes(rank: (type: ResourceType) => number | undefined): ResourceType[] {
  return RESOURCE_TYPES.filter((t) => rank(t) !== undefined).sort(
    (a, b) => (rank(a) ?? 0) - (rank(b) ?? 0),
  );
}

/** Type URLs in ADS push order: CDS → EDS → LDS → RDS (others follow as they come). */
export const ADS_ORDER: readonly string[] = rankedTypes((t) => t.adsOrder).map((t) => t.typeUrl);

/** `CDS`, `LDS`, … for known types; the message name for anything else (as istiod logs). */
export function shortTypeName(typeUrl: string): string {
  return byUrl.get(typeUrl)?.shortName ?? typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** How a type is shown back to a user: its short name when it has one, else its URL. */
export function displayTypeName(typeUrl: string): string {
  return byUrl.get(typeUrl)?.shortName ?? typeUrl;
}

/** istiod's metric label (`cds`, …); any other type URL as it is (as istiod does). */
export function metricLabel(typeUrl: string): string {
  return byUrl.get(typeUrl)?.metricLabel ?? typeUrl;
}

/** Whether an empty `resource_names` list means "everything" for this type. */
export function isWildcardType(typeUrl: string): boolean {
  return byUrl.get(typeUrl)?.wildcard ?? false;
}

/**
 * istiod's `IsWildcardTypeURL`: every type is sent whole, whatever names a request lists,
 * except those asked for by name (EDS, RDS, SDS, ECDS); istiod's own and unknown types too.
 */
export function isWildcardForIstiod(typeUrl: string): boolean {
  return byUrl.get(typeUrl)?.wildcard !== false;
}

/** The types a new watch of this type forces to answer their next ACK (CDS: EDS). */
export function warmingDependents(typeUrl: string): readonly string[] {
  return byUrl.get(typeUrl)?.warmingDependents ?? [];
}

/** Whether a type sends a resource for a name it has none of (see `emptyResource`). */
export function fillsMissingNames(typeUrl: string): boolean {
  return byUrl.get(typeUrl)?.emptyResource !== undefined;
}

/** What a type sends for a name it has no resource of, if anything (see `emptyResource`). */
export function emptyResourceOf(typeUrl: string, name: string): ResourceJson | undefined {
  return byUrl.get(typeUrl)?.emptyResource?.(name);
}

/** What a type may be called, for error messages. */
export const TYPE_NAME_HINT = `one of ${RESOURCE_TYPES.map((t) => t.shortName).join(', ')} or a type URL (${TYPE_PREFIX}…)`;

/**
 * The one parser of type names, used by faults, the control API, timelines and the CLI:
 * istiod's short name in any case (`cds`, ` LDS `), a type URL, or a bare message name
 * (`envoy.config.cluster.v3.Cluster`). Undefined when the text names no type.
 */
export function parseTypeName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const text = name.trim();
  const known = byShortName.get(text.toUpperCase());
  if (known) return known.typeUrl;
  if (text.startsWith(TYPE_PREFIX)) return text.length > TYPE_PREFIX.length ? text : undefined;
  return /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/.test(text) ? `${TYPE_PREFIX}${text}` : undefined;
}

/**
 * A list of type names, as faults, timelines and the control API take them: one name or a
 * non-empty array of names, duplicates dropped. Every name it cannot read is a problem at
 * `path[i]` (or `path` for a single name).
 */
export function parseTypeNames(raw: unknown, path: string): Result<string[]> {
  const list: unknown = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0) {
    return {
      ok: false,
      problems: [
        { path, message: `expected a non-empty list of resource types (${TYPE_NAME_HINT})` },
      ],
    };
  }
  const problems: Problem[] = [];
  const urls: string[] = [];
  (list as unknown[]).forEach((name, i) => {
    const url = parseTypeName(name);
    if (!url) {
      const where = typeof raw === 'string' ? path : `${path}[${i}]`;
      problems.push({
        path: where,
        message: `expected ${TYPE_NAME_HINT}, found ${JSON.stringify(name)}`,
      });
    } else if (!urls.includes(url)) urls.push(url);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: urls };
}

/** A comma-separated list of type names (`cds,lds`, as in a query string), empty entries dropped. */
export function parseTypeList(list: string, path: string): Result<string[]> {
  const names = list.split(',').filter((name) => name.trim() !== '');
  return names.length === 0 ? { ok: true, value: [] } : parseTypeNames(names, path);
}
