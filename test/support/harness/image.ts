/**
 * The container image under test: the tools it needs (a missing one fails with the command
 * that installs it), `scripts/build-image.sh`, and `podman` run with the settings this kind of
 * machine needs (runtime runc, explicit ulimits: see docs/container.md).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../../src/util/package-root.js';

const run = promisify(execFile);

export const IMAGE_TOOLS = ['podman', 'buildah', 'mmdebstrap', 'runc'] as const;

/** Throws, naming the missing tools and how to install them, unless all are on the PATH. */
export function requireImageTools(): void {
  const missing = IMAGE_TOOLS.filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'pipe' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new Error(
      `the image test needs ${missing.join(', ')}: install with ` +
        `\`apt-get install -y ${IMAGE_TOOLS.join(' ')}\` (Debian/Ubuntu; .ci/run does this)`,
    );
  }
}

/**
 * The tag the image tests build and run: `mock-istiod:e2e`, or `MOCK_ISTIOD_E2E_IMAGE_TAG`
 * where several checkouts share one podman store (each its own tag, so that one's build does
 * not replace the image another is testing).
 */
export const E2E_IMAGE_TAG = process.env['MOCK_ISTIOD_E2E_IMAGE_TAG'] || 'mock-istiod:e2e';

/** Builds the image with `scripts/build-image.sh --tag <tag>`; resolves to the build's duration. */
export async function buildImage(tag: string): Promise<number> {
  const started = performance.now();
  await run('bash', [join(packageRoot(), 'scripts', 'build-image.sh'), '--quiet', '--tag', tag], {
    cwd: packageRoot(),
    timeout: 600_000,
    maxBuffer: 64 << 20,
  });
  return performance.now() - started;
}

/** Writes a containers.conf for this kind of machine (runc, ulimits) into `dir`; its path. */
export function podmanConf(dir: string): string {
  const conf = join(dir, 'containers.conf');
  writeFileSync(
    conf,
    [
      '[containers]',
      'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]',
      '',
      '[engine]',
      'runtime = "runc"',
      '',
    ].join('\n'),
  );
  return conf;
}

/** A `podman` with its own containers.conf (runc, ulimits); `dispose()` removes the file. */
export function usePodman() {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-podman-'));
  const env = { ...process.env, CONTAINERS_CONF: podmanConf(dir) };
  return {
    /** Runs `podman <args>` to its end (30 s at most); resolves to its stdout. */
    podman: async (args: string[], timeoutMs = 30_000): Promise<string> =>
      (await run('podman', args, { env, timeout: timeoutMs })).stdout,
    /** The environment that gives `podman` these settings (`CONTAINERS_CONF`). */
    env,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
