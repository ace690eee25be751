/**
 * One spawned Envoy OS process (or pilot-agent, which runs its own Envoy): its captured
 * output, its exit, stopping it, and a registry that SIGKILLs every one still running when
 * this Node process exits (or is ended by SIGINT, SIGTERM or SIGHUP), so a failing test never
 * leaks one. Internal to `src/envoy/`.
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

export interface ChildSpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Start the child in a process group of its own and send SIGKILL to the whole group: for
   * pilot-agent, whose Envoy would outlive a killed pilot-agent otherwise.
   */
  processGroup?: boolean;
  /** Also called with every chunk of output as it comes (the log keeps it too). */
  onOutput?: (chunk: string) => void;
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
    private readonly spawnOptions: ChildSpawnOptions = {},
  ) {
    this.#log = new BoundedLog(logLimitChars);
    const { cwd, env, processGroup = false, onOutput } = spawnOptions;
    const child = spawn(envoyBin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd,
      env,
      detached: processGroup,
    });
    this.#process = child;
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        this.#log.append(chunk);
        onOutput?.(chunk);
      });
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
      const timer = setTimeout(() => this.#kill(), timeoutMs);
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    // pilot-agent that ended (or was killed) before its Envoy: the Envoy goes too.
    if (this.spawnOptions.processGroup === true) this.#kill();
    this.#cleanUp();
    return await this.exited;
  }

  /** Synchronous last resort (process exit): SIGKILL and remove the temp dir. */
  killNow(): void {
    if (this.#exit === undefined || this.spawnOptions.processGroup === true) this.#kill();
    this.#cleanUp();
  }

  /** SIGKILL to the process, or to its whole group (a group outlives its leader's exit). */
  #kill(): void {
    const pid = this.#process.pid;
    if (this.spawnOptions.processGroup === true && pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    } else {
      this.#process.kill('SIGKILL');
    }
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
