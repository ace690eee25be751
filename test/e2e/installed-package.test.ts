/**
 * The examples run from the installed package, not only through this checkout's path
 * aliases: `npm pack` (which builds), the tarball installed into an empty project (from
 * the npm cache where it can, as `--prefer-offline` does), an example type-checked against the package's own
 * `.d.ts` files and run there by vitest with a real Envoy. The package's CLI and its
 * `install-envoy` verb, and the advice a user gets without Envoy, are checked there too.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { findEnvoy } from '../../src/envoy/find-envoy.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');
let project: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'installed-package-'));
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', project], {
    cwd: REPO,
    timeout: 120_000,
  });
  const tarball = join(project, packed.stdout.trim().split('\n').at(-1)!);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'a-user-project', private: true, type: 'module' }),
  );
  await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    timeout: 120_000,
  });
  // The user's own dev tools: the test runner, the compiler and Node's types.
  // (@types/node may have come in already as a dependency of a dependency.)
  for (const tool of ['vitest', 'typescript', '@types/node']) {
    const target = join(project, 'node_modules', tool);
    if (existsSync(target)) continue;
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', tool), target);
  }
  mkdirSync(join(project, 'examples'));
  for (const file of ['istiod-down.test.ts', 'app.ts']) {
    copyFileSync(join(REPO, 'examples', file), join(project, 'examples', file));
  }
}, 240_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

test('an example type-checks against the installed package and runs with a real Envoy', async () => {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['examples'],
    }),
  );
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  await expect(run(process.execPath, [tsc, '-p', '.'], { cwd: project })).resolves.toBeDefined();

  const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs');
  const env = { ...process.env, ENVOY_BIN: findEnvoy() };
  const ran = await run(process.execPath, [vitest, 'run', '--root', project, 'examples'], {
    cwd: project,
    env,
    timeout: 120_000,
  });
  expect(ran.stdout).toMatch(/Tests\s+.*1 passed/);
}, 180_000);

test("the package's CLI runs, installs Envoy with the shipped script, and says how when it is missing", async () => {
  const cli = join(project, 'node_modules', '.bin', 'mock-istiod');
  const help = await run(cli, ['--help'], { cwd: project });
  expect(help.stdout).toContain('install-envoy');

  // With ENVOY_BIN the shipped install script checks that binary and installs nothing.
  const envoy = findEnvoy();
  const installed = await run(cli, ['install-envoy'], {
    cwd: project,
    env: { ...process.env, ENVOY_BIN: envoy },
  });
  expect(installed.stdout.trim()).toBe(envoy);

  // Without Envoy, the advice is the command that works from an installed package.
  const script = [
    "import { startEnvoy } from 'mock-istiod/testing';",
    'try { await startEnvoy({ bootstrap: {} }); } catch (err) { console.log(err.code, err.message); }',
  ].join('\n');
  writeFileSync(join(project, 'no-envoy.mjs'), script);
  const env = { ...process.env };
  delete env['ENVOY_BIN'];
  const missing = await run(process.execPath, ['no-envoy.mjs'], { cwd: project, env });
  expect(missing.stdout).toContain('ENVOY_NOT_FOUND');
  expect(missing.stdout).toContain('run `npx mock-istiod install-envoy` (needs Python 3)');
}, 60_000);
