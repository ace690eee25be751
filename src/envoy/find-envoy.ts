/**
 * Locates the real Envoy binary used by tests, the agent and the demo: `ENVOY_BIN` when set,
 * otherwise the one `scripts/install-envoy.sh` installs into `<package root>/.venv/bin/envoy`.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MockIstiodError } from '../util/errors.js';
import { packageRoot } from '../util/package-root.js';

/**
 * How to install Envoy, from where the user is: in a git checkout of this project the npm
 * script; from an installed package (no `.git` beside its package.json) the CLI verb, which
 * runs the same script shipped in the package.
 */
export function installEnvoyAdvice(root: string = packageRoot()): string {
  return existsSync(join(root, '.git'))
    ? 'run `npm run install-envoy` (scripts/install-envoy.sh) or set ENVOY_BIN'
    : 'run `npx mock-istiod install-envoy` (needs Python 3) or set ENVOY_BIN';
}

/** The Envoy binary is missing or not executable; the message says how to fix it. */
function envoyNotFoundError(path: string): MockIstiodError<'ENVOY_NOT_FOUND'> {
  return new MockIstiodError(
    'ENVOY_NOT_FOUND',
    `Envoy binary not found at ${path}: ${installEnvoyAdvice()}`,
    { details: { path } },
  );
}

/** Where the install script puts Envoy: `<package root>/.venv/bin/envoy`. */
export function defaultEnvoyPath(): string {
  return join(packageRoot(), '.venv', 'bin', 'envoy');
}

/**
 * The path of the Envoy binary to run. `ENVOY_BIN` (from `env`) wins when set; either way the
 * file must exist and be executable, otherwise this throws a `MockIstiodError` with code
 * `ENVOY_NOT_FOUND`.
 */
export function findEnvoy(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['ENVOY_BIN'];
  const path = fromEnv !== undefined && fromEnv !== '' ? fromEnv : defaultEnvoyPath();
  if (!isExecutableFile(path)) throw envoyNotFoundError(path);
  return path;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
