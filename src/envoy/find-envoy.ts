/**
 * Locates the real Envoy binary used by tests, the agent and the demo: `ENVOY_BIN` when set,
 * else the one unpacked from the zstd file `MOCK_ISTIOD_ENVOY_ZST` names (the container
 * image's; see unpack-envoy.ts), otherwise the one `scripts/install-envoy.sh` installs — into `<checkout>/.venv` in a git
 * checkout, into the per-user cache (`$XDG_CACHE_HOME` or `~/.cache`, then
 * `mock-istiod/envoy-<version>`) from an installed package.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MockIstiodError } from '../util/errors.js';
import { packageRoot } from '../util/package-root.js';
import { ENVOY_ZST_VARIABLE, isExecutableFile, unpackEnvoy } from './unpack-envoy.js';

/** The Envoy version `scripts/install-envoy.sh` pins (a unit test keeps the two in step). */
export const PINNED_ENVOY_VERSION = '1.40.0';

/** A git checkout of this project (a `.git` beside its package.json), not an installed package. */
function isCheckout(root: string): boolean {
  return existsSync(join(root, '.git'));
}

/**
 * How to install Envoy, from where the user is: in a git checkout of this project the npm
 * script; from an installed package the CLI verb, which runs the same script shipped in the
 * package.
 */
export function installEnvoyAdvice(root: string = packageRoot()): string {
  return isCheckout(root)
    ? 'run `npm run install-envoy` (scripts/install-envoy.sh) or set ENVOY_BIN'
    : 'run `npx mock-istiod install-envoy` (needs Python 3) or set ENVOY_BIN';
}

/** The Envoy binary is missing or not executable; the message says how to fix it. */
function envoyNotFoundError(path: string, root: string): MockIstiodError<'ENVOY_NOT_FOUND'> {
  return new MockIstiodError(
    'ENVOY_NOT_FOUND',
    `Envoy binary not found at ${path}: ${installEnvoyAdvice(root)}`,
    { details: { path } },
  );
}

/**
 * The virtualenv the install script installs Envoy into: `<root>/.venv` in a checkout,
 * otherwise `<cache>/mock-istiod/envoy-<version>`, where the cache is `XDG_CACHE_HOME` or
 * `~/.cache` (as the script computes it).
 */
export function envoyInstallDir(
  env: NodeJS.ProcessEnv = process.env,
  root: string = packageRoot(),
): string {
  if (isCheckout(root)) return join(root, '.venv');
  const xdg = env['XDG_CACHE_HOME'];
  const cache = xdg !== undefined && xdg !== '' ? xdg : join(env['HOME'] ?? homedir(), '.cache');
  return join(cache, 'mock-istiod', `envoy-${PINNED_ENVOY_VERSION}`);
}

/** Where the install script puts the Envoy binary: `<install dir>/bin/envoy`. */
export function defaultEnvoyPath(
  env: NodeJS.ProcessEnv = process.env,
  root: string = packageRoot(),
): string {
  return join(envoyInstallDir(env, root), 'bin', 'envoy');
}

/**
 * The path of the Envoy binary to run. `ENVOY_BIN` (from `env`) wins when set; then
 * `MOCK_ISTIOD_ENVOY_ZST`, a zstd-compressed Envoy unpacked on first use (`unpackEnvoy`).
 * Either way the file must exist and be executable, otherwise this throws a `MockIstiodError`
 * with code `ENVOY_NOT_FOUND`.
 */
export function findEnvoy(
  env: NodeJS.ProcessEnv = process.env,
  root: string = packageRoot(),
): string {
  const fromEnv = env['ENVOY_BIN'];
  const compressed = env[ENVOY_ZST_VARIABLE];
  if ((fromEnv === undefined || fromEnv === '') && compressed !== undefined && compressed !== '') {
    return unpackEnvoy(compressed, env);
  }
  const path = fromEnv !== undefined && fromEnv !== '' ? fromEnv : defaultEnvoyPath(env, root);
  if (!isExecutableFile(path)) throw envoyNotFoundError(path, root);
  return path;
}
