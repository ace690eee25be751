/**
 * The real command line, as a user runs it: `node --import tsx src/cli/main.ts …` from the
 * package root, stdout and stderr captured. Call `useCli()` at the top of a test file: every
 * process it starts is killed after each test (even a failed one), so none outlives its test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { waitFor } from '../../src/util/wait.js';

/** `serve` on free ports for both xDS and the control API (the real ports are logged). */
export const FREE_SERVE_PORTS = ['--port', '0', '--control-port', '0'];
/** JSON log lines on stdout, so a test can read what the command reports (see `logLines`). */
export const JSON_LOGS = ['--log-format', 'json'];

export interface CliOptions {
  /**
   * Run with only these variables, plus PATH and HOME (which Node and Envoy need), as in a
   * sidecar container. Without it the command inherits this process's environment.
   */
  podEnv?: Record<string, string>;
  /** How long `run` and `exited` wait for the command to exit (default 15 s). */
  timeoutMs?: number;
  /**
   * Run another `mock-istiod` than this checkout's: an executable (e.g. an installed package's
   * `node_modules/.bin/mock-istiod`) and the directory to run it in.
   */
  installed?: { bin: string; cwd: string };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command that may still be running. */
export interface CliRun {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** The complete, non-empty lines of stdout so far (a line still being written is left out). */
  lines(): string[];
  stderr(): string;
  /**
   * The exit code (null when ended by a signal), once stdout and stderr are complete. When the
   * command has not exited within `timeoutMs`, it is killed and the promise rejects.
   */
  exited(timeoutMs?: number): Promise<number | null>;
}

/** One line of the JSON log, as `--log-format json` writes it. */
export interface LogLine {
  msg: string;
  xds?: string;
  control?: { port: number };
  [field: string]: unknown;
}

const DEFAULT_TIMEOUT_MS = 15_000;

export function useCli() {
  const running = new Set<{ child: ChildProcess; exit: Promise<unknown> }>();
  afterEach(async () => {
    for (const { child, exit } of running) {
      child.kill('SIGKILL');
      await exit;
    }
    running.clear();
  });
  const start = (args: string[], options: CliOptions = {}): CliRun => {
    const run = spawnCli(args, options);
    const entry = { child: run.child, exit: once(run.child, 'exit').catch(() => undefined) };
    running.add(entry);
    void entry.exit.then(() => running.delete(entry));
    return run;
  };
  return {
    /** Starts a command that keeps running (`serve`, `agent`, `status --watch`). */
    start,
    /** Runs a command to its end, with a deadline; kills it if the deadline passes. */
    run: async (args: string[], options: CliOptions = {}): Promise<CliResult> => {
      const run = start(args, options);
      const code = await run.exited();
      return { code, stdout: run.stdout(), stderr: run.stderr() };
    },
  };
}

/** Starts a command without `useCli` (for scripts): the caller must kill it. */
export function spawnCli(args: string[], options: CliOptions): CliRun {
  const env = options.podEnv && {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    ...options.podEnv,
  };
  const [command, commandArgs, cwd] = options.installed
    ? [options.installed.bin, args, options.installed.cwd]
    : [process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], packageRoot()];
  const child = spawn(command, commandArgs, {
    cwd,
    env: env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // 'close' rather than 'exit': it comes once stdout and stderr have been read to the end.
  let closed = false;
  const close = once(child, 'close').then(([code]) => {
    closed = true;
    return code as number | null;
  });
  const exited = (timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS) =>
    withDeadline(close, timeoutMs, () => {
      child.kill('SIGKILL');
      const what = `mock-istiod ${args.join(' ')}`;
      return new Error(`${what} did not exit within ${timeoutMs} ms; stderr: ${stderr}`);
    });
  const lines = () => {
    const complete = closed ? stdout : stdout.slice(0, stdout.lastIndexOf('\n') + 1);
    return complete.split('\n').filter(Boolean);
  };
  return { child, stdout: () => stdout, lines, stderr: () => stderr, exited };
}

/** Resolves as `promise` does, or rejects with `onTimeout()` once `timeoutMs` has passed. */
async function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** stdout's complete lines, parsed as JSON log lines. */
export function logLines(run: CliRun): LogLine[] {
  return run.lines().map((line) => JSON.parse(line) as LogLine);
}

/** The line `serve` logs once it listens; it carries the xDS address it listens on. */
export const isServing = (line: LogLine): line is LogLine & { xds: string } =>
  line.msg === 'mock istiod is serving';

/** Waits for `serve --log-format json` to log that it listens, and returns that line. */
export function waitForServing(
  run: CliRun,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<LogLine & { xds: string }> {
  return waitFor(() => logLines(run).find(isServing), {
    timeoutMs,
    description: 'the "mock istiod is serving" log line',
  });
}
