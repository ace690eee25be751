/**
 * Packing remembered by content: a resource that comes again with the same JSON (every
 * resource but the changed one, when a set is installed again) reuses its encoding and
 * content version instead of being converted from JSON and hashed again. The key is the
 * resource's JSON text; an input that JSON cannot spell exactly (an `undefined` field, a
 * number that is not finite, an object that is not a plain one, such as a Date) is never
 * cached, so it is always checked as it is. Only successful packs are kept, and the cache
 * is emptied once its keys pass a size, so a long-running mock does not grow with it.
 */
import type { PackedAny } from '../xds/json.js';

export interface CachedPack extends PackedAny {
  version: string;
}

/** Total length of the keys (JSON characters) kept at most, about 16 MB of text. */
const MAX_KEY_CHARS = 16 * 1024 * 1024;

let cache = new Map<string, CachedPack>();
let keyChars = 0;

const NOT_PLAIN = new Error('not plain JSON');

function plainOnly(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  switch (typeof raw) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(raw)) return value;
      throw NOT_PLAIN;
    case 'object': {
      if (raw === null || Array.isArray(raw)) return value;
      const proto = Object.getPrototypeOf(raw) as unknown;
      if (proto === Object.prototype || proto === null) return value;
      throw NOT_PLAIN;
    }
    default:
      throw NOT_PLAIN;
  }
}

/** The cache key of an input: its JSON text, or undefined when JSON would not say it exactly. */
export function packKey(input: unknown): string | undefined {
  try {
    return JSON.stringify(input, plainOnly);
  } catch (err) {
    // Not plain JSON, or nested too deeply for JSON.stringify's stack (a fuzzed body): no key,
    // and the conversion that follows reports what is wrong with it.
    if (err === NOT_PLAIN || err instanceof RangeError) return undefined;
    throw err;
  }
}

export function cachedPack(key: string): CachedPack | undefined {
  return cache.get(key);
}

export function rememberPack(key: string, packed: CachedPack): void {
  if (keyChars + key.length > MAX_KEY_CHARS) {
    cache = new Map();
    keyChars = 0;
  }
  cache.set(key, packed);
  keyChars += key.length;
}
