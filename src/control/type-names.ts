/**
 * Resource types as people type them in query strings and flags: istiod's short names
 * (`cds`, `LDS`, …, case-insensitive, as in `?types=cds,lds`), a full type URL, or a bare
 * message name.
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
  TYPE_PREFIX,
} from '../xds/type-urls.js';

const BY_SHORT_NAME: Record<string, string> = {
  CDS: CLUSTER_TYPE,
  LDS: LISTENER_TYPE,
  RDS: ROUTE_TYPE,
  EDS: ENDPOINT_TYPE,
  SDS: SECRET_TYPE,
  ECDS: EXTENSION_CONFIG_TYPE,
};

export const SHORT_TYPE_NAMES = Object.keys(BY_SHORT_NAME);

/** The type URL a name means. */
export function typeUrlFromName(name: string): string {
  const trimmed = name.trim();
  const short = BY_SHORT_NAME[trimmed.toUpperCase()];
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
