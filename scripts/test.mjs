// `npm test`: the whole suite. With no arguments it runs the vitest projects in two lanes at
// once, each its own vitest process with one worker. On 2 cores a single vitest run uses one
// worker (vitest takes the CPU count minus one), so unit and integration tests used to wait for
// every Envoy, pilot-agent, podman and cluster test to finish, most of which is waiting for
// those processes rather than computing. The lanes are chosen so that one holds the projects
// that start real processes and the other the ones that mostly compute (docs/docs-tests.md,
// "How the suite runs"). With arguments (`npm test -- --project unit`, a file name) it is
// `vitest run` with those arguments, as before.
//
// Each lane's lines are printed as they come, prefixed with the lane's name; the run fails
// when either lane fails, and both always run to the end. The last lines, each starting
// `npm test: `, say how each lane ended and name the tests that failed, so that a log cut to its
// tail (CI's) still says what broke. Plain JavaScript, like
// build-if-stale.mjs: no tsx start-up for a launcher.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

/**
 * The lanes: vitest projects (vitest.config.ts), each lane run by one `vitest run`. Within a
 * lane, vitest runs the parallel projects first, then the serial ones (fileParallelism off)
 * one file at a time.
 */
const LANES = [
  { name: 'real', projects: ['e2e', 'cluster'] },
  { name: 'fast', projects: ['unit', 'integration', 'conformance', 'adversarial', 'docs'] },
];

/** How many lines naming failed tests the summary repeats at the end. */
const MAX_FAILURE_LINES = 40;

/** ANSI colour codes, which vitest writes when the output is a terminal. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/**
 * A line of vitest's output that names a failure: a failed test or file (`FAIL`, `×`), an
 * error's first line, or the count of failed tests.
 */
const FAILURE = /^\s*(FAIL\s|×\s|\w*Error: |Tests\s.*\bfailed\b|Test Files\s.*\bfailed\b)/;

const args = process.argv.slice(2);
if (args.length > 0) {
  process.exitCode = await run(['run', ...args], undefined);
} else {
  process.exitCode = await runLanes();
}

/**
 * Runs every lane at once; resolves to the exit code for the whole suite.
 * @returns {Promise<number>}
 */
async function runLanes() {
  const width = Math.max(...LANES.map((lane) => lane.name.length));
  const started = Date.now();
  /** @type {string[]} */
  const failures = [];
  const results = await Promise.all(
    LANES.map(async (lane) => {
      const projectArgs = lane.projects.flatMap((project) => ['--project', project]);
      const code = await run(['run', ...projectArgs], lane.name.padEnd(width), failures);
      return { lane, code, seconds: (Date.now() - started) / 1000 };
    }),
  );
  process.stdout.write('\n');
  for (const { lane, code, seconds } of results) {
    const outcome = code === 0 ? 'passed' : `failed (exit ${code})`;
    process.stdout.write(
      `npm test: lane ${lane.name} (${lane.projects.join(', ')}) ${outcome} after ${seconds.toFixed(0)} s\n`,
    );
  }
  for (const line of failures.slice(0, MAX_FAILURE_LINES)) {
    process.stdout.write(`npm test: ${line}\n`);
  }
  if (failures.length > MAX_FAILURE_LINES) {
    process.stdout.write(
      `npm test: (${failures.length - MAX_FAILURE_LINES} more failure lines above)\n`,
    );
  }
  return results.every((result) => result.code === 0) ? 0 : 1;
}

/**
 * One vitest process. With a prefix, its output is read line by line and each line printed
 * with it, so that two lanes' lines never cut into each other; without one, it inherits the
 * terminal. Lines naming a failure are also added to `failures`, prefixed the same way.
 * Resolves to its exit code (1 when it was ended by a signal).
 * @param {string[]} vitestArgs
 * @param {string | undefined} prefix
 * @param {string[]} [failures]
 * @returns {Promise<number>}
 */
function run(vitestArgs, prefix, failures = []) {
  const child = spawn(process.execPath, [vitest, ...vitestArgs], {
    cwd: root,
    stdio: prefix === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env:
      prefix !== undefined && process.stdout.isTTY
        ? { ...process.env, FORCE_COLOR: '1' }
        : process.env,
  });
  if (prefix !== undefined) {
    /** @type {[import('node:stream').Readable, NodeJS.WriteStream][]} */
    const pipes = [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ];
    for (const [stream, out] of pipes) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        out.write(`[${prefix}] ${line}\n`);
        const plain = line.replace(ANSI, '');
        if (FAILURE.test(plain)) failures.push(`[${prefix}] ${plain.trim().slice(0, 300)}`);
      });
    }
  }
  /** @param {NodeJS.Signals} signal */
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`npm test: cannot start vitest (${err.message}): run npm ci first\n`);
      resolve(1);
    });
    child.on('close', (code) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? 1);
    });
  });
}
