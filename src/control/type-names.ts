/**
 * Resource types as people type them in query strings and flags: istiod's short names
 * (`cds`, `LDS`, …, case-insensitive, as in `?types=cds,lds`), a full type URL, or a bare
 * message name.
 */
import { SHORT_TYPE_NAMES, TYPE_PREFIX, typeUrlOfShortName } from '../xds/type-urls.js';

export { SHORT_TYPE_NAMES };

/** The type URL a name means. */
export function typeUrlFromName(name: string): string {
  const trimmed = name.trim();
  const short = typeUrlOfShortName(trimmed);
  if (short) return short;
  return trimmed.includes('/') ? trimmed : `${TYPE_PREFIX}${trimmed}`;
}

/** A comma-separated list of names (`cds,lds`), empty entries dropped. */
export function typeUrlsFromList(list: string): string[] {
  return list
    .split(',')
    .filter((name) => name.trim() !== '')
    .map(typeUrlFromName);
}
