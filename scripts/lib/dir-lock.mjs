// A lock between processes on one machine: a directory made with mkdir (atomic), holding the
// holder's pid. A lock whose holder is gone (a build killed half-way) is taken over at once,
// not waited on; a lock with no pid yet is its holder's for `FRESH_MS`, then stale too.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';

/** How long a lock may have no pid in it (its holder between mkdir and writing it). */
export const FRESH_MS = 10_000;

/** @param {number} ms */
function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Whether the lock at `dir` is held by no process: its pid is not running, or it has none and
 * is older than FRESH_MS.
 * @param {string} dir
 */
export function holderGone(dir) {
  let pid;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    const made = statSync(dir, { throwIfNoEntry: false });
    return made !== undefined && Date.now() - made.mtimeMs > FRESH_MS;
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH';
  }
}

/**
 * Takes the lock at `dir`, waiting up to `timeoutMs` for a live holder; false when it is
 * still held then.
 * @param {string} dir
 * @param {number} timeoutMs
 */
export function takeLock(dir, timeoutMs) {
  mkdirSync(dirname(dir), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return true;
    } catch {
      if (holderGone(dir)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) return false;
      sleep(200);
    }
  }
}

/** @param {string} dir */
export function releaseLock(dir) {
  rmSync(dir, { recursive: true, force: true });
}
