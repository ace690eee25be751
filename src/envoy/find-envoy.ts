/**
 * Locates the real Envoy binary used by tests, the agent and the demo: `ENVOY_BIN` when set,
 * otherwise the one `scripts/install-envoy.sh` installs into `<package root>/.venv/bin/envoy`.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';

/** The Envoy binary is missing or not executable; the message says how to fix it. */
export class EnvoyNotFoundError extends Error {
  constructor(readonly path: string) {
    super(
      `Envoy binary not found at ${path}: run \`npm run install-envoy\` ` +
        '(scripts/install-envoy.sh) or set ENVOY_BIN',
    );
    this.name = 'EnvoyNotFoundError';
  }
}

/** Where the install script puts Envoy: `<package root>/.venv/bin/envoy`. */
export function defaultEnvoyPath(): string {
  return join(packageRoot(), '.venv', 'bin', 'envoy');
}

/**
 * The path of the Envoy binary to run. `ENVOY_BIN` (from `env`) wins when set; either way the
 * file must exist and be executable, otherwise this throws {@link EnvoyNotFoundError}.
 */
export function findEnvoy(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['ENVOY_BIN'];
  const path = fromEnv !== undefined && fromEnv !== '' ? fromEnv : defaultEnvoyPath();
  if (!isExecutableFile(path)) throw new EnvoyNotFoundError(path);
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
