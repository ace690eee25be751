// `npm start`'s prestart: runs `npm run build` when dist/ is missing or older than a source
// file, so that `npm start` can run the compiled CLI (about a third of the CPU of running the
// sources under tsx) and still work on a fresh clone. Plain JavaScript: it must not pay for tsx
// itself. When dist/ is fresh it costs one Node start and a stat of each source file.
// Concurrent runs (several `npm start`s at once) build once: the others wait for the lock
// (scripts/lib/dir-lock.mjs), unless the run that took it is gone.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { releaseLock, takeLock } from './lib/dir-lock.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const OUTPUTS = [
  'dist/src/cli/main.js',
  'dist/src/cli/main.bundle.cjs',
  'dist/descriptors/envoy-types.json',
];
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'proto'];
const lock = join(root, 'dist', '.building');

/** @param {string} path */
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The newest modification time under `path` (a file or a directory).
 * @param {string} path
 * @returns {number}
 */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a file removed or renamed changes its directory
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function stale() {
  const built = OUTPUTS.map((file) => mtime(join(root, file)));
  if (built.some((t) => t === undefined)) return 'dist/ is missing';
  const oldest = Math.min(.../** @type {number[]} */ (built));
  const changed = INPUTS.find((input) => newest(join(root, input)) > oldest);
  return changed && `${changed} changed since the last build`;
}

const why = stale();
if (why) {
  if (!takeLock(lock, 120_000)) {
    process.stderr.write(`prestart: ${lock} is held for over 2 minutes by a build still running\n`);
    process.exit(1);
  }
  try {
    const still = stale();
    if (still) {
      process.stderr.write(`prestart: ${still}: npm run build\n`);
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    }
  } finally {
    releaseLock(lock);
  }
}
