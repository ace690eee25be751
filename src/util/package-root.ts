/**
 * Finds this package's root directory: the nearest folder holding a `package.json`, walking up
 * from the calling module. Works from `src/` under tsx and from `dist/src/` once compiled.
 */
import { accessSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The root of the mock-istiod package (cached after the first call). */
export function packageRoot(): string {
  cached ??= findPackageRoot(import.meta.url);
  return cached;
}

/** The nearest directory at or above the file `fromUrl` that holds a `package.json`. */
export function findPackageRoot(fromUrl: string): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    try {
      accessSync(join(dir, 'package.json'));
      return dir;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) throw new Error(`mock-istiod: cannot find package.json above ${dir}`);
      dir = parent;
    }
  }
}
