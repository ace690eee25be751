/**
 * `mock-istiod --version` (or `-V`): the package's version, read from its own package.json, so
 * a checkout and an installed package both report what they are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';

/** The `version` field of this package's package.json. */
export function packageVersion(root: string = packageRoot()): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error(`no version in ${root}/package.json`);
  return pkg.version;
}

/** The line `--version` prints, e.g. `mock-istiod 0.1.0`. */
export function versionLine(): string {
  return `mock-istiod ${packageVersion()}\n`;
}
