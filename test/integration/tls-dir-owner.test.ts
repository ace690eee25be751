/**
 * The TLS directory is the user's own: `serve --tls` keeps its files in a per-user directory
 * it makes 0700, and a directory (or a key in it) that another user owns, or that group or
 * others may write, is refused with one line before any key in it is used, by `serve`,
 * `certs --for istioctl` and `token --tls-dir` alike. (Another owner needs root to set up:
 * the suite runs as root here.)
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultTlsDir } from '../../src/cli/serve/tls-flags.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { prepareTlsMaterial } from '../../src/tls/tls-material.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  useCli,
  waitForServing,
} from '../support/fixtures/cli.js';

const cli = useCli();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-tls-owner-'));
  dirs.push(dir);
  return dir;
}

/** A directory filled as `serve --tls-dir` fills it (as a planted one would be). */
async function filledDir(): Promise<string> {
  const dir = join(tempDir(), 'tls');
  const made = await prepareTlsMaterial({ dir, hosts: [], trustDomain: 'cluster.local' });
  expect(made.ok).toBe(true);
  return dir;
}

/** Each case spawns the CLI a few times: seconds each on a busy machine. */
const CLI_CASE_MS = 60_000;

/** `serve` refuses the directory: exit 2, one line naming the path and why, no stack. */
async function expectRefused(dir: string, path: string, why: RegExp): Promise<void> {
  const serve = await cli.run(['serve', '--tls-dir', dir, ...FREE_SERVE_PORTS]);
  expect(serve.code).toBe(2);
  const lines = serve.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`mock-istiod: invalid TLS directory: ${path}: `);
  expect(lines[0]).toMatch(why);
  expect(serve.stderr).not.toMatch(/\n\s+at /);
}

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** These cases hand a directory to another user (chown), which only root may do. */
function needRoot(): void {
  if (!asRoot)
    throw new Error(
      'this case needs root (it chowns a directory to uid 65534): run the suite as root, as CI does',
    );
}

describe('the TLS directory is the user’s own', () => {
  it('the default is per user: under the user’s cache', () => {
    expect(defaultTlsDir({ XDG_RUNTIME_DIR: '/run/user/1000', HOME: '/home/a' })).toBe(
      '/home/a/.cache/mock-istiod/tls',
    );
    expect(defaultTlsDir({ XDG_CACHE_HOME: '/c', HOME: '/home/a' })).toBe('/c/mock-istiod/tls');
    expect(defaultTlsDir({ XDG_CACHE_HOME: 'relative', HOME: '/home/a' })).toBe(
      '/home/a/.cache/mock-istiod/tls',
    );
  });

  it(
    'serve --tls makes the default directory 0700 under $XDG_CACHE_HOME',
    async () => {
      const cache = tempDir();
      const serve = cli.start(['serve', '--tls', ...FREE_SERVE_PORTS, ...JSON_LOGS], {
        podEnv: { XDG_CACHE_HOME: cache },
      });
      await waitForServing(serve, 20_000);
      const dir = join(cache, 'mock-istiod', 'tls');
      const rootCert = logLines(serve).find((l) => l.rootCert !== undefined)?.rootCert;
      expect(rootCert).toBe(join(dir, TLS_FILES.rootCert));
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, TLS_FILES.caKey)).mode & 0o777).toBe(0o600);
    },
    CLI_CASE_MS,
  );

  it(
    'refuses a directory another user owns, with its planted CA',
    async () => {
      needRoot();
      const dir = await filledDir();
      chownSync(dir, NOBODY, NOBODY);
      await expectRefused(dir, dir, /is owned by uid 65534, not by you \(uid 0\)/);
      const out = join(tempDir(), 'istioctl');
      const istioctl = await cli.run([
        'certs',
        '--for',
        'istioctl',
        '--tls-dir',
        dir,
        '--out',
        out,
      ]);
      expect(istioctl.code).toBe(2);
      expect(istioctl.stderr).toMatch(/invalid TLS directory: .*is owned by uid 65534/);
    },
    CLI_CASE_MS,
  );

  it(
    'refuses a directory group or others may write (0777)',
    async () => {
      const dir = await filledDir();
      chmodSync(dir, 0o777);
      await expectRefused(dir, dir, /is writable by group or others \(mode 0777\)/);
    },
    CLI_CASE_MS,
  );

  it(
    'refuses a key another user owns, or others may write',
    async () => {
      needRoot();
      const dir = await filledDir();
      const caKey = join(dir, TLS_FILES.caKey);
      chownSync(caKey, NOBODY, NOBODY);
      await expectRefused(dir, caKey, /is owned by uid 65534/);
      chownSync(caKey, 0, 0);
      const jwtKey = join(dir, TLS_FILES.jwtKey);
      chmodSync(jwtKey, 0o666);
      await expectRefused(dir, jwtKey, /is writable by group or others \(mode 0666\)/);
      const token = await cli.run(['token', '--tls-dir', dir]);
      expect(token.code).toBe(2);
      expect(token.stderr).toContain(`invalid TLS directory: ${jwtKey}: is writable`);
    },
    CLI_CASE_MS,
  );

  it(
    'accepts a root-owned sticky directory others may write, as a Secret volume is',
    async () => {
      const dir = await filledDir();
      chmodSync(dir, 0o1777);
      const serve = cli.start(['serve', '--tls-dir', dir, ...FREE_SERVE_PORTS, ...JSON_LOGS]);
      await waitForServing(serve, 20_000);
    },
    CLI_CASE_MS,
  );
});
