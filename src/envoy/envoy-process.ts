/**
 * Starts and stops real Envoy processes for tests, the agent and the demo.
 *
 * Every Envoy runs with `--disable-hot-restart` (several run at once on one machine) and
 * `--admin-address-path`: Envoy writes the admin listener's real address there once it is
 * bound, which is how an admin port of 0 (checked with Envoy 1.40) becomes a usable URL.
 * Envoy writes that file even when the rest of the bootstrap then fails, so a bad config shows
 * up as an early exit, which every wait here reports at once with the exit code and the last
 * log lines instead of running into its timeout. Envoys still running when Node exits are
 * killed (see `envoy-child.ts`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WaitOptions } from '../util/wait.js';
import { EnvoyAdminClient } from './admin-client.js';
import type { StatValue } from './admin-client.js';
import { EnvoyChild } from './envoy-child.js';
import type { EnvoyExit } from './envoy-exit.js';
import { findEnvoy } from './find-envoy.js';

export { envoyExitedError, type EnvoyExit } from './envoy-exit.js';

export type EnvoyLogLevel = 'trace' | 'debug' | 'info' | 'warning' | 'error' | 'critical' | 'off';

export interface StartEnvoyOptions {
  /** A bootstrap object (written as JSON to a temp file) or the path of a bootstrap file. */
  bootstrap: object | string;
  /** `--log-level` (default `info`). */
  logLevel?: EnvoyLogLevel;
  /** More command-line arguments, appended last. */
  extraArgs?: readonly string[];
  /** The Envoy binary (default: {@link findEnvoy}). */
  envoyBin?: string;
  /** `--concurrency` (default 1: one worker is plenty for tests, and machines have 2 cores). */
  concurrency?: number;
  /** How long to wait for the admin listener (default 15 s). */
  startTimeoutMs?: number;
  /** How much of Envoy's stdout+stderr to keep, in characters (default 1 MiB). */
  logLimitChars?: number;
}

const LOG_TAIL_LINES = 20;

/** Spawns Envoy and resolves once its admin API is reachable (not yet LIVE: see `waitForLive`). */
export async function startEnvoy(options: StartEnvoyOptions): Promise<EnvoyProcess> {
  const envoyBin = options.envoyBin ?? findEnvoy();
  const tempDir = mkdtempSync(join(tmpdir(), 'mock-istiod-envoy-'));
  const configPath =
    typeof options.bootstrap === 'string'
      ? options.bootstrap
      : writeBootstrap(tempDir, options.bootstrap);
  const addressPath = join(tempDir, 'admin-address');
  const args = [
    ...['-c', configPath, '--disable-hot-restart', '--admin-address-path', addressPath],
    ...['--log-level', options.logLevel ?? 'info'],
    ...['--concurrency', String(options.concurrency ?? 1)],
    ...(options.extraArgs ?? []),
  ];
  const child = new EnvoyChild(envoyBin, args, tempDir, options.logLimitChars ?? 1 << 20);
  try {
    const address = await child.waitUnlessExited(() => readAdminAddress(addressPath), {
      timeoutMs: options.startTimeoutMs ?? 15_000,
      intervalMs: 20,
      description: `Envoy to write its admin address to ${addressPath}`,
    });
    return new EnvoyProcess(child, `http://${address}`, configPath);
  } catch (err) {
    await child.stop(1_000);
    throw err;
  }
}

/**
 * A running Envoy: its admin API (every {@link EnvoyAdminClient} method: `ready()`, `stats()`,
 * `configDump()`, `dynamicListeners()`, …), with waits that end at once if Envoy exits, its
 * logs, and `stop()`.
 */
export class EnvoyProcess extends EnvoyAdminClient {
  readonly #child: EnvoyChild;

  /** Made by {@link startEnvoy}. */
  constructor(
    child: EnvoyChild,
    adminUrl: string,
    /** The bootstrap file Envoy was started with. */
    readonly configPath: string,
  ) {
    super(adminUrl);
    this.#child = child;
  }

  /** The OS process id (0 if spawning failed). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Resolves when the process has exited; never rejects. */
  get exited(): Promise<EnvoyExit> {
    return this.#child.exited;
  }

  /** The exit status once exited, else undefined. */
  get exitStatus(): EnvoyExit | undefined {
    return this.#child.exit;
  }

  /**
   * Waits until `/ready` is 200 and `listener_manager.workers_started` is 1 (only then do
   * listeners accept traffic). Rejects at once if Envoy exits (default timeout 15 s).
   */
  override async waitForLive(options: WaitOptions = {}): Promise<void> {
    await this.#child.waitUnlessExited(() => this.isLive(), {
      timeoutMs: 15_000,
      description: 'Envoy to be LIVE (/ready 200 and listener_manager.workers_started 1)',
      ...options,
    });
  }

  /** Waits until stat `name` satisfies `predicate`; rejects at once if Envoy exits. */
  override async waitForStat(
    name: string,
    predicate: (value: StatValue | undefined) => boolean,
    options: WaitOptions = {},
  ): Promise<StatValue | undefined> {
    const { value } = await this.#child.waitUnlessExited(
      async () => {
        const current = await this.stat(name);
        return predicate(current) && { value: current };
      },
      { description: `Envoy stat ${name} to match`, ...options },
    );
    return value;
  }

  /** Envoy's captured stdout and stderr (the most recent part, bounded in size). */
  logs(): string {
    return this.#child.logs();
  }

  /** The last `count` log lines. */
  logTail(count = LOG_TAIL_LINES): string {
    return this.#child.logTail(count);
  }

  /**
   * SIGTERM, then SIGKILL if Envoy is still running after `timeoutMs` (default 5 s); removes
   * the temp files. Idempotent: later calls return the same result. Envoy exits with code 0 on
   * SIGTERM once its main loop runs; stopped earlier, it ends with signal SIGTERM.
   */
  stop(options: { timeoutMs?: number } = {}): Promise<EnvoyExit> {
    return this.#child.stop(options.timeoutMs ?? 5_000);
  }
}

function writeBootstrap(dir: string, bootstrap: object): string {
  const path = join(dir, 'bootstrap.json');
  writeFileSync(path, JSON.stringify(bootstrap, null, 2));
  return path;
}

/**
 * The admin address Envoy wrote (`127.0.0.1:40123`, `[::1]:40123`), with a wildcard bind
 * address replaced by loopback; undefined until the file holds a complete address.
 */
function readAdminAddress(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
  const match = /^(.+):(\d+)$/.exec(text);
  if (!match?.[1] || !match[2] || Number(match[2]) === 0) return undefined;
  const host = match[1] === '0.0.0.0' ? '127.0.0.1' : match[1] === '[::]' ? '[::1]' : match[1];
  return `${host}:${match[2]}`;
}
