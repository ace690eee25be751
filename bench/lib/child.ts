/**
 * A child process that speaks JSON lines on stdout (and, for the load generator, takes them
 * on stdin), optionally pinned to CPUs with `taskset`. Every child the harness starts is one
 * of these, and `stop()` ends it (SIGTERM, then SIGKILL) even when a scenario fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildOptions {
  cwd?: string;
  /** A `taskset -c` CPU list (e.g. `0`); undefined: no pinning. */
  cpus?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Takes each stdout line that does not start with `{`, instead of the JSON reader. */
  onOtherLine?: ((line: string) => void) | undefined;
}

const STDERR_LIMIT = 8_192;
const children = new Set<JsonLineChild>();

// A harness that dies (Ctrl-C, an exception) must not leave servers or generators running.
process.once('exit', () => {
  for (const child of children) child.kill();
});

export class JsonLineChild {
  readonly pid: number;
  private readonly proc: ChildProcess;
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private stderr = '';
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    file: string,
    args: readonly string[],
    options: ChildOptions = {},
  ) {
    const [command, argv] = options.cpus
      ? ['taskset', ['-c', options.cpus, file, ...args]]
      : [file, args];
    // taskset execs the program, so the pid is the program's own.
    this.proc = spawn(command, argv, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.pid = this.proc.pid ?? 0;
    children.add(this);
    const other = options.onOtherLine;
    createInterface({ input: this.proc.stdout! }).on('line', (line) =>
      other && !line.startsWith('{') ? other(line) : this.onLine(line),
    );
    this.proc.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_LIMIT);
    });
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code) => {
        this.exitCode = code;
        children.delete(this);
        this.waiter?.(undefined);
        resolve();
      }),
    );
  }

  private onLine(line: string): void {
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter(line);
    } else this.lines.push(line);
  }

  /** The next JSON line, parsed; rejects on timeout or if the process exits first. */
  async next<T>(timeoutMs: number, what: string): Promise<T> {
    const queued = this.lines.shift();
    const line =
      queued ??
      (await new Promise<string | undefined>((resolve, reject) => {
        if (this.exitCode !== undefined) return resolve(undefined);
        const timer = setTimeout(() => {
          this.waiter = undefined;
          reject(new Error(`${this.name}: no ${what} within ${timeoutMs} ms${this.tail()}`));
        }, timeoutMs);
        this.waiter = (value) => {
          clearTimeout(timer);
          resolve(value);
        };
      }));
    if (line === undefined) {
      throw new Error(
        `${this.name} exited (code ${String(this.exitCode)}) before ${what}${this.tail()}`,
      );
    }
    return JSON.parse(line) as T;
  }

  send(value: unknown): void {
    this.proc.stdin!.write(`${JSON.stringify(value)}\n`);
  }

  private tail(): string {
    const text = this.stderr.trim();
    return text ? `; its stderr ends with:\n${text.slice(-1_000)}` : '';
  }

  kill(): void {
    if (this.exitCode === undefined) this.proc.kill('SIGKILL');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  async stop(graceMs = 3_000): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
