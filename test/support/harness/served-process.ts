/**
 * The full server as users run it, in a process of its own: `mock-istiod serve` on free
 * ports with the control API on, the journal written to a file and JSON logs, plus the
 * memory probe (memory-probe.ts) so a soak can sample its RSS and heap after a GC. The
 * clients of a soak or a storm then never share the server's heap or event loop. Its soft
 * open-file limit is raised to the hard one (fd-limit.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../src/util/package-root.js';
import { waitFor } from '../../../src/util/wait.js';
import { spawnWithRaisedFdLimit } from '../fixtures/fd-limit.js';

export interface MemorySample {
  /** Milliseconds since the server started. */
  atMs: number;
  rss: number;
  heapUsed: number;
  /** Whether a full GC ran before the sample (`--expose-gc`). */
  collected: boolean;
}

/**
 * The event-loop delay of a window (memory-probe.ts): the mock's own, less the time the
 * machine kept its ready main thread off the CPU; `grossMaxMs` with that time.
 */
export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
  grossMaxMs: number;
  /** How many delays were sampled in the window. */
  samples: number;
}

export interface ServedProcess {
  readonly pid: number;
  readonly xdsAddress: string;
  readonly controlUrl: string;
  /** Log lines at level error or above, as written (at most the first 50). */
  readonly errorLines: string[];
  /** How many log lines at warn and at error or above were seen. */
  readonly logCounts: { warn: number; error: number };
  memory(): Promise<MemorySample>;
  /** The event-loop delay since the last `resetLoopDelay()` (or since start). */
  loopDelay(): Promise<LoopDelay>;
  /** Starts a new event-loop delay window. */
  resetLoopDelay(): Promise<void>;
  /** SIGTERM, then the exit code (null when it had to be killed after `boundMs`). */
  stop(boundMs?: number): Promise<number | null>;
  /** SIGKILL without waiting for anything: for cleanup after a failure. */
  kill(): void;
}

const PROBE = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));

interface LogLine {
  level?: number;
  msg?: string;
  xds?: string;
  control?: { host: string; port: number };
}

export async function startServedProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServedProcess> {
  const child = spawnWithRaisedFdLimit(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      PROBE,
      'src/cli/main.ts',
      'serve',
      '--port',
      '0',
      '--control-port',
      '0',
      '--log-format',
      'json',
      ...args,
    ],
    { cwd: packageRoot(), env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  const startedAt = Date.now();
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const errorLines: string[] = [];
  const logCounts = { warn: 0, error: 0 };
  let ready: LogLine | undefined;
  let stderr = '';
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      const line = parseLine(text);
      if (!line) continue;
      if (line.msg === 'mock istiod is serving') ready = line;
      if ((line.level ?? 0) >= 50) {
        logCounts.error += 1;
        if (errorLines.length < 50) errorLines.push(text);
      } else if (line.level === 40) logCounts.warn += 1;
    }
  });
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    const line = await waitFor(() => (gone ? Promise.reject(new Error('exited')) : ready), {
      timeoutMs: 60_000,
      description: 'the served mock to log "mock istiod is serving"',
      explain: () => `stderr: ${stderr}`,
    });
    if (!line.xds || !line.control) throw new Error('the ready line has no addresses');
    return served(child, exited, line, { errorLines, logCounts, startedAt });
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`the served mock did not start: ${(err as Error).message}; stderr: ${stderr}`, {
      cause: err,
    });
  }
}

function parseLine(text: string): LogLine | undefined {
  try {
    return JSON.parse(text) as LogLine;
  } catch {
    return undefined;
  }
}

function served(
  child: ChildProcess,
  exited: Promise<number | null>,
  line: LogLine,
  state: { errorLines: string[]; logCounts: { warn: number; error: number }; startedAt: number },
): ServedProcess {
  const control = line.control as { host: string; port: number };
  /** One question to the probe (memory-probe.ts) and its answer of the same kind. */
  const ask = async <T>(question: 'memory' | 'loop' | 'loop-reset'): Promise<T> => {
    const kind = question;
    const answer = new Promise<T>((resolve) => {
      const onMessage = (message: { kind?: string }) => {
        if (message.kind !== kind) return;
        child.off('message', onMessage);
        resolve(message as T);
      };
      child.on('message', onMessage);
    });
    child.send(question);
    return Promise.race([
      answer,
      exited.then(() => Promise.reject(new Error('the served mock exited'))),
    ]);
  };
  return {
    pid: child.pid ?? 0,
    xdsAddress: line.xds as string,
    controlUrl: `http://${control.host}:${control.port}`,
    errorLines: state.errorLines,
    logCounts: state.logCounts,
    async memory() {
      const m = await ask<{ rss: number; heapUsed: number; collected: boolean }>('memory');
      return { atMs: Date.now() - state.startedAt, ...m };
    },
    loopDelay: () => ask<LoopDelay>('loop'),
    async resetLoopDelay() {
      await ask('loop-reset');
    },
    async stop(boundMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
