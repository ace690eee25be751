/**
 * Runs once before the e2e project: every e2e test needs a real Envoy, and a missing one must
 * fail the run with instructions, never skip tests silently.
 */
import { execFileSync } from 'node:child_process';
import { findEnvoy } from '../../src/envoy/find-envoy.js';

export default function setup(): void {
  let envoyBin: string;
  try {
    envoyBin = findEnvoy();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`e2e tests need a real Envoy. ${reason}`, { cause: err });
  }
  try {
    execFileSync(envoyBin, ['--version'], { stdio: 'pipe', timeout: 30_000 });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `e2e tests need a real Envoy, but \`${envoyBin} --version\` failed (${reason}): ` +
        'run `npm run install-envoy` (scripts/install-envoy.sh) or set ENVOY_BIN',
      { cause: err },
    );
  }
}
