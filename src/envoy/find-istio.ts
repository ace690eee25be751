/**
 * Locates the real Istio binaries `scripts/install-istio.sh` builds: `pilot-agent`,
 * `istioctl` and Istio's Envoy bootstrap template (`envoy_bootstrap.json`, which pilot-agent
 * reads as `var/lib/istio/envoy/envoy_bootstrap_tmpl.json`), in `ISTIO_BIN_DIR` or
 * `<package root>/.istio/bin`.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { MockIstiodError } from '../util/errors.js';
import { packageRoot } from '../util/package-root.js';

export const INSTALL_ISTIO_HINT =
  'run `npm run install-istio` (scripts/install-istio.sh; needs Go) or set ISTIO_BIN_DIR';

export interface IstioBinaries {
  dir: string;
  pilotAgent: string;
  istioctl: string;
  /** Istio's `tools/packaging/common/envoy_bootstrap.json`, from the same module version. */
  bootstrapTemplate: string;
}

/** Where the install script puts them: `<package root>/.istio/bin`. */
export function defaultIstioBinDir(): string {
  return join(packageRoot(), '.istio', 'bin');
}

/**
 * The binaries' paths. Each must exist (the two binaries executable); otherwise this throws a
 * `MockIstiodError` with code `ISTIO_NOT_FOUND` naming the first missing file and the fix.
 */
export function findIstio(env: NodeJS.ProcessEnv = process.env): IstioBinaries {
  const fromEnv = env['ISTIO_BIN_DIR'];
  const dir = fromEnv !== undefined && fromEnv !== '' ? fromEnv : defaultIstioBinDir();
  const found: IstioBinaries = {
    dir,
    pilotAgent: join(dir, 'pilot-agent'),
    istioctl: join(dir, 'istioctl'),
    bootstrapTemplate: join(dir, 'envoy_bootstrap.json'),
  };
  for (const path of [found.pilotAgent, found.istioctl]) {
    if (!isFile(path, constants.X_OK)) throw istioNotFound(path);
  }
  if (!isFile(found.bootstrapTemplate, constants.R_OK))
    throw istioNotFound(found.bootstrapTemplate);
  return found;
}

function istioNotFound(path: string): MockIstiodError<'ISTIO_NOT_FOUND'> {
  return new MockIstiodError('ISTIO_NOT_FOUND', `${path} not found: ${INSTALL_ISTIO_HINT}`, {
    details: { path },
  });
}

function isFile(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
