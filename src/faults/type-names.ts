/**
 * Resource types as users name them in faults: istiod's short names (`CDS`, `LDS`, `EDS`,
 * `RDS`, `SDS`, `ECDS`, any case) or full type URLs (`type.googleapis.com/…`).
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
  TYPE_PREFIX,
  shortTypeName,
} from '../xds/type-urls.js';

const BY_SHORT_NAME: Record<string, string> = {
  CDS: CLUSTER_TYPE,
  LDS: LISTENER_TYPE,
  EDS: ENDPOINT_TYPE,
  RDS: ROUTE_TYPE,
  SDS: SECRET_TYPE,
  ECDS: EXTENSION_CONFIG_TYPE,
};

export const TYPE_NAME_HINT = `one of ${Object.keys(BY_SHORT_NAME).join(', ')} or a type URL (${TYPE_PREFIX}…)`;

/** The type URL a user's name stands for, or undefined when it names no type. */
export function resolveTypeName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const short = BY_SHORT_NAME[name.toUpperCase()];
  if (short) return short;
  return name.startsWith(TYPE_PREFIX) && name.length > TYPE_PREFIX.length ? name : undefined;
}

/** How a type is shown back: its short name when it has one. */
export function displayTypeName(typeUrl: string): string {
  return BY_SHORT_NAME[shortTypeName(typeUrl)] === typeUrl ? shortTypeName(typeUrl) : typeUrl;
}
