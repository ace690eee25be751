/**
 * Extensions this Envoy cannot know: a sidecar runs Istio's build of Envoy, whose filters
 * (`istio.stats`, `istio.metadata_exchange`, peer metadata…) are not in upstream Envoy nor in
 * the protos the mock validates with. Each is found by its `@type` (or a `TypedStruct`'s
 * `type_url`); where it is an entry of a list or a map (a filter, a per-route config) it can be
 * dropped (`--drop-unknown-extensions`), and each drop is reported. Anywhere else it is an error.
 */
import { isObject } from '../util/guards.js';
import type { Problem } from '../util/problems.js';
import { findMessageType } from '../xds/protos.js';
import { messageNameOf } from '../xds/type-urls.js';
import type { Json } from './json-walk.js';
import type { ImportReport } from './report.js';

const TYPED_STRUCTS = new Set(['udpa.type.v1.TypedStruct', 'xds.type.v3.TypedStruct']);

/** The unknown type an Any (or a `TypedStruct` inside one) names, else undefined. */
function unknownType(value: unknown): string | undefined {
  if (!isObject(value) || typeof value['@type'] !== 'string') return undefined;
  const name = messageNameOf(value['@type']) ?? value['@type'];
  if (TYPED_STRUCTS.has(name) && typeof value.type_url === 'string') {
    const inner = messageNameOf(value.type_url) ?? value.type_url;
    return findMessageType(inner) ? undefined : inner;
  }
  return findMessageType(name) ? undefined : name;
}

/** An entry naming an unknown extension: itself an Any of one, or holding one as `typed_config`. */
function unknownEntry(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  return unknownType(value) ?? unknownType(value.typed_config);
}

/**
 * Drops (or, with `drop` false, lists as problems) the entries naming unknown extensions;
 * returns the problems: unknown types that are not an entry, or every one when not dropping.
 */
export function pruneUnknownExtensions(
  resource: Json,
  path: string,
  drop: boolean,
  report: ImportReport,
): Problem[] {
  const problems: Problem[] = [];
  const top = unknownType(resource);
  if (top) return [{ path, message: `unknown resource type ${top}` }];
  visit(resource, path, drop, report, problems);
  return problems;
}

function visit(
  value: unknown,
  path: string,
  drop: boolean,
  report: ImportReport,
  problems: Problem[],
): void {
  if (Array.isArray(value)) {
    const dropped = new Set<number>();
    value.forEach((entry, i) => {
      const outcome = handled(entry, `${path}[${i}]`, drop, report, problems);
      if (outcome === 'dropped') dropped.add(i);
      else if (!outcome) visit(entry, `${path}[${i}]`, drop, report, problems);
    });
    const kept: unknown[] = value.filter((_entry: unknown, i) => !dropped.has(i));
    value.splice(0, value.length, ...kept);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const at = `${path}.${key}`;
    // A map of extensions by name (typed_per_filter_config, typed_extension_protocol_options).
    if (
      key.startsWith('typed_') &&
      key !== 'typed_config' &&
      isObject(child) &&
      !('@type' in child)
    ) {
      for (const [name, entry] of Object.entries(child)) {
        if (handled(entry, `${at}.${name}`, drop, report, problems) === 'dropped')
          delete child[name];
        else visit(entry, `${at}.${name}`, drop, report, problems);
      }
      continue;
    }
    const bare =
      key === 'typed_config' || key === 'config_discovery' ? unknownType(child) : undefined;
    if (bare)
      problems.push({
        path: at,
        message: `unknown extension type ${bare}: it cannot be removed from here`,
      });
    else visit(child, at, drop, report, problems);
  }
}

/** What became of an entry naming an unknown extension; undefined for any other entry. */
function handled(
  entry: unknown,
  at: string,
  drop: boolean,
  report: ImportReport,
  problems: Problem[],
): 'dropped' | 'reported' | undefined {
  const type = unknownEntry(entry);
  if (!type) return undefined;
  const name = isObject(entry) && typeof entry.name === 'string' ? `${entry.name} ` : '';
  if (!drop) {
    problems.push({
      path: at,
      message: `${name}(${type}): an extension upstream Envoy does not have (Istio's own build?); --drop-unknown-extensions removes it`,
    });
    return 'reported';
  }
  report.rewrites.push({
    path: at,
    message: `${name}(${type}) dropped: an extension upstream Envoy does not have`,
  });
  return 'dropped';
}
