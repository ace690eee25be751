/**
 * One spawned Envoy OS process: its captured output, its exit, stopping it, and a registry that
 * SIGKILLs every Envoy still running when this Node process exits (or is ended by SIGINT,
 * SIGTERM or SIGHUP), so a failing test never leaks one. Internal to `src/envoy/`.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { waitFor } from '../util/wait.js';
import type { WaitOptions } from '../util/wait.js';
import { BoundedLog } from './bounded-log.js';
import { envoyExitedError } from './envoy-exit.js';
import type { EnvoyExit } from './envoy-exit.js';

const EXITED = Symbol('exited');
const running = new Set<EnvoyChild>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const child of running) child.killNow();
  };
  process.on('exit', killAll);
  // A signal ends Node without 'exit'. Kill the Envoys, then, if nobody else handles the
  // signal, re-raise it so that its default action (terminating) still happens.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

export class EnvoyChild {
  /** Resolves when the process has exited (or failed to spawn); never rejects. */
  readonly exited: Promise<EnvoyExit>;
  readonly #process: ChildProcess;
  readonly #log: BoundedLog;
  #exit: EnvoyExit | undefined;
  #stopping: Promise<EnvoyExit> | undefined;

  /** Spawns `envoyBin args`; `tempDir` is removed when the process is stopped. */
  constructor(
    envoyBin: string,
    args: readonly string[],
    private readonly tempDir: string,
    logLimitChars: number,
  ) {
    this.#log = new BoundedLog(logLimitChars);
    const child = spawn(envoyBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#process = child;
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => this.#log.append(chunk));
    }
    this.exited = new Promise((resolve) => {
      const settle = (exit: EnvoyExit) => {
        this.#exit ??= exit;
        resolve(this.#exit);
      };
      child.once('error', (error) => settle({ code: null, signal: null, error }));
      child.once('close', (code, signal) => settle({ code, signal }));
    });
    installExitHook();
    running.add(this);
  }

  get pid(): number {
    return this.#process.pid ?? 0;
  }

  get exit(): EnvoyExit | undefined {
    return this.#exit;
  }

  logs(): string {
    return this.#log.text();
  }

  logTail(count: number): string {
    return this.#log.tail(count);
  }

  /** SIGTERM, SIGKILL after `timeoutMs`, then removes the temp dir. Idempotent. */
  stop(timeoutMs: number): Promise<EnvoyExit> {
    this.#stopping ??= this.#stop(timeoutMs);
    return this.#stopping;
  }

  async #stop(timeoutMs: number): Promise<EnvoyExit> {
    if (this.#exit === undefined) {
      this.#process.kill('SIGTERM');
      const timer = setTimeout(() => this.#process.kill('SIGKILL'), timeoutMs);
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    this.#cleanUp();
    return await this.exited;
  }

  /** Synchronous last resort (process exit): SIGKILL and remove the temp dir. */
  killNow(): void {
    if (this.#exit === undefined) this.#process.kill('SIGKILL');
    this.#cleanUp();
  }

  #cleanUp(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
    running.delete(this);
  }

  /**
   * `waitFor`, ending early with an `ENVOY_EXITED` error (exit status and last log lines) as
   * soon as Envoy exits; a timeout error gets the last log lines too.
   */
  async waitUnlessExited<T>(
    probe: () => T | undefined | false | Promise<T | undefined | false>,
    options: WaitOptions,
  ): Promise<T> {
    const explain = () =>
      [options.explain?.(), `last Envoy log lines:\n${this.logTail(20)}`]
        .filter((line) => line !== undefined)
        .join('\n');
    const result = await waitFor<T | typeof EXITED>(
      () => (this.#exit !== undefined ? EXITED : probe()),
      { ...options, explain },
    );
    if (result === EXITED) {
      throw envoyExitedError(this.#exit ?? { code: null, signal: null }, this.logTail(20));
    }
    return result;
  }
}
