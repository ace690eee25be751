/**
 * scripts/lib/dir-lock.mjs, the lock `npm start`'s build (scripts/build-if-stale.mjs) takes,
 * run as that script runs it, in a Node of its own: a lock whose holder is gone (a build
 * killed half-way) is taken over at once; one a live process holds is waited on and not
 * taken; one with no pid yet is its holder's for a while, then stale.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const LOCK_MODULE = pathToFileURL(join(packageRoot(), 'scripts', 'lib', 'dir-lock.mjs')).href;
const root = mkdtempSync(join(tmpdir(), 'mock-istiod-dir-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `takeLock(dir, timeoutMs)` in a Node of its own: whether it took the lock, and its pid. */
function takeLockElsewhere(dir: string, timeoutMs: number): { took: boolean; pid: number } {
  const code = `const { takeLock } = await import(${JSON.stringify(LOCK_MODULE)});
process.stdout.write(JSON.stringify({ took: takeLock(${JSON.stringify(dir)}, ${timeoutMs}), pid: process.pid }));`;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(ran.status, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout) as { took: boolean; pid: number };
}

/** The pid of a process that has exited. */
function goneProcessPid(): number {
  const ran = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(ran.stdout);
}

it('takes over at once a lock whose holder is gone, and writes its own pid', () => {
  const dir = join(root, 'gone');
  mkdirSync(dir);
  writeFileSync(join(dir, 'pid'), String(goneProcessPid()));
  const started = Date.now();
  const { took, pid } = takeLockElsewhere(dir, 60_000);
  expect(took).toBe(true);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(Number(readFileSync(join(dir, 'pid'), 'utf8'))).toBe(pid);
});

it('waits on a lock a live process holds, and does not take it', () => {
  const dir = join(root, 'live');
  mkdirSync(dir);
  writeFileSync(join(dir, 'pid'), String(process.pid));
  expect(takeLockElsewhere(dir, 400).took).toBe(false);
  expect(Number(readFileSync(join(dir, 'pid'), 'utf8'))).toBe(process.pid);
});

it('leaves a lock without a pid to its holder for a while, then takes it', () => {
  const dir = join(root, 'no-pid');
  mkdirSync(dir);
  expect(takeLockElsewhere(dir, 0).took).toBe(false);
  const aMinuteAgo = new Date(Date.now() - 60_000);
  utimesSync(dir, aMinuteAgo, aMinuteAgo);
  expect(takeLockElsewhere(dir, 0).took).toBe(true);
});
