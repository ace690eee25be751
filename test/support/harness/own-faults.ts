/**
 * The mock's own faults, on a real `mock-istiod serve` child process under load: killed
 * with SIGKILL while it writes its journal, its journal's disk full, and stopped with
 * SIGTERM while streams are open and pushes go out. The suite runs each small
 * (test/integration/own-faults.test.ts); scripts/reliability.ts runs them big.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { AdsTestClient, type AdsTestStream } from '../../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { waitFor } from '../../../src/util/wait.js';
import { grpcStatusName } from '../../../src/core/grpc-status.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  waitForServing,
  type CliRun,
} from '../fixtures/cli.js';
import { sidecarNode } from '../fixtures/nodes.js';

/** Starts a command; the caller kills what it started (useCli in tests, the script itself). */
export type StartCli = (args: string[]) => CliRun;

export interface Served {
  run: CliRun;
  xds: string;
  control: string;
}

const NO_RATE_LIMIT = ['--max-streams-per-second', '0'];

export async function serveChild(start: StartCli, extra: string[] = []): Promise<Served> {
  // Loads of streams at once, not istiod's connection rate limit (rate-limit.test.ts): off.
  const run = start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, ...NO_RATE_LIMIT, ...extra]);
  const serving = await waitForServing(run, 30_000).catch((err: unknown) => {
    throw new Error(`${String(err)}; stderr: ${run.stderr()}`);
  });
  return { run, xds: serving.xds, control: `http://127.0.0.1:${serving.control?.port}` };
}

/**
 * Load until `stop()` says enough: `workers` loops each opening a stream, reading its first
 * response and half-closing it, and one loop asking for a push to every stream. Every one of
 * these is journaled (open, subscribe, response, close). Errors after the server went away
 * are expected, and end the loops.
 */
export async function keepBusy(served: Served, stop: () => boolean, workers = 10): Promise<number> {
  const client = new AdsTestClient(served.xds);
  let cycles = 0;
  const worker = async (w: number) => {
    while (!stop()) {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(`busy-${w}-${cycles}`) });
      try {
        await stream.next(10_000);
        await stream.halfClose();
      } catch {
        return;
      }
      cycles += 1;
    }
  };
  const pusher = async () => {
    while (!stop()) {
      const answer = await fetch(`${served.control}/control/push`, { method: 'POST' }).catch(
        () => undefined,
      );
      if (!answer) return;
      await answer.body?.cancel();
    }
  };
  try {
    await Promise.all([pusher(), ...Array.from({ length: workers }, (_, w) => worker(w))]);
  } finally {
    client.close();
  }
  return cycles;
}

export const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** Mounts a tmpfs of `size` (e.g. `64k`) on `dir`; needs root. Returns the unmount. */
export function mountSmallDisk(dir: string, size: string): () => void {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const reason = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
    throw new Error(
      `the full-disk test mounts a ${size} tmpfs on ${dir} and needs root (or CAP_SYS_ADMIN): ${reason}`,
      { cause: err },
    );
  }
  return () => execFileSync('umount', [dir], { stdio: 'pipe' });
}

export interface SigtermReport {
  streams: number;
  /** How the streams ended, by gRPC status name. */
  endings: Record<string, number>;
  exitCode: number | null;
  /** From SIGTERM to the process gone. */
  exitMs: number;
}

/** Opens `count` streams (each served once), keeps pushing, sends SIGTERM, and times the exit. */
export async function sigtermUnderLoad(served: Served, count: number): Promise<SigtermReport> {
  const client = new AdsTestClient(served.xds);
  try {
    const streams: AdsTestStream[] = [];
    for (let i = 0; i < count; i++) {
      const stream = client.sotw();
      stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode(`term-${i}`) });
      streams.push(stream);
    }
    await Promise.all(streams.map((s) => s.next(30_000)));
    let stopped = false;
    const busy = keepBusy(served, () => stopped, 4);
    const started = Date.now();
    served.run.child.kill('SIGTERM');
    const exitCode = await served.run.exited(30_000);
    const exitMs = Date.now() - started;
    stopped = true;
    const endings: Record<string, number> = {};
    const ends = await Promise.all(streams.map((s) => s.done));
    for (const end of ends) {
      const name = grpcStatusName(end.code);
      endings[name] = (endings[name] ?? 0) + 1;
    }
    await busy;
    return { streams: count, endings, exitCode, exitMs };
  } finally {
    client.close();
  }
}

/** Waits for `serve` to log that its journal file stopped, and returns that line. */
export function waitForJournalFailure(run: CliRun, timeoutMs: number) {
  return waitFor(
    () => logLines(run).find((line) => line.msg.startsWith('journal file: writing stopped')),
    { timeoutMs, description: 'the "journal file: writing stopped" log line' },
  );
}
