/**
 * A CommonJS package loaded on its first use instead of at import, for heavy packages that only
 * some paths need (the YAML parser for files): start-up then does not
 * pay for them. `require` is synchronous, so callers stay synchronous too.
 *
 *   import type * as Yaml from 'yaml';
 *   const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');
 *   yaml().parse(text);
 */
import { createRequire } from 'node:module';

export function lazyRequire<T>(fromUrl: string, specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(fromUrl)(specifier) as T);
}
