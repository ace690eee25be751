/**
 * Resource types as users name them in faults: istiod's short names (`CDS`, `LDS`, `EDS`,
 * `RDS`, `SDS`, `ECDS`, any case) or full type URLs (`type.googleapis.com/…`).
 */
import {
  SHORT_TYPE_NAMES,
  TYPE_PREFIX,
  shortTypeName,
  typeUrlOfShortName,
} from '../xds/type-urls.js';

export const TYPE_NAME_HINT = `one of ${SHORT_TYPE_NAMES.join(', ')} or a type URL (${TYPE_PREFIX}…)`;

/** The type URL a user's name stands for, or undefined when it names no type. */
export function resolveTypeName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const short = typeUrlOfShortName(name);
  if (short) return short;
  return name.startsWith(TYPE_PREFIX) && name.length > TYPE_PREFIX.length ? name : undefined;
}

/** How a type is shown back: its short name when it has one. */
export function displayTypeName(typeUrl: string): string {
  return typeUrlOfShortName(shortTypeName(typeUrl)) === typeUrl ? shortTypeName(typeUrl) : typeUrl;
}
