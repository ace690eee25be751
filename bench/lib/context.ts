/** What every scenario is given: where things are, how to start servers and generators. */
import type { BenchPrograms } from './build.js';
import { Loadgen, type LoadgenOptions } from './loadgen-process.js';
import type { Profile } from './profile.js';
import { cpuSeconds } from './proc.js';
import {
  isFloor,
  ServerProcess,
  type ServerKind,
  type StartServerOptions,
} from './server-process.js';

export interface BenchContext {
  rootDir: string;
  /** A temp directory for resource files. */
  workDir: string;
  profile: Profile;
  servers: readonly ServerKind[];
  bins: BenchPrograms;
  /** CPU lists for `taskset` (undefined: no pinning). */
  pin: { server: string; loadgen: string } | undefined;
  log(message: string): void;
}

/** The real xDS servers, the mock and the peer (the floors only take part in ramps and pushes). */
export function pushingServers(ctx: BenchContext): ServerKind[] {
  return ctx.servers.filter((kind) => !isFloor(kind));
}

export function startServer(
  ctx: BenchContext,
  kind: ServerKind,
  resourcesPath: string,
  extra: Pick<StartServerOptions, 'nodeFlags' | 'onOtherLine'> = {},
) {
  return ServerProcess.start({
    kind,
    resourcesPath,
    rootDir: ctx.rootDir,
    bins: ctx.bins,
    cpus: ctx.pin?.server,
    ...extra,
  });
}

export function startLoadgen(
  ctx: BenchContext,
  server: ServerProcess,
  options: Partial<LoadgenOptions> = {},
): Loadgen {
  return new Loadgen({
    bin: ctx.bins.loadgen,
    target: server.xdsAddress,
    mode: 'sotw',
    cpus: ctx.pin?.loadgen,
    ...options,
  });
}

/**
 * Waits until the process has stopped using CPU (less than one clock tick in 100 ms), at
 * most `maxMs`: after the generator saw every ACK, the server may still be reading them.
 */
export async function settle(pid: number, maxMs = 3_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = cpuSeconds(pid);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuSeconds(pid);
    if (now - last < 0.01) return;
    last = now;
  }
}

/** Runs `body` with a server, always stopping it. */
export async function withServer<T>(
  ctx: BenchContext,
  kind: ServerKind,
  resourcesPath: string,
  body: (server: ServerProcess) => Promise<T>,
  extra: Pick<StartServerOptions, 'nodeFlags' | 'onOtherLine'> = {},
): Promise<T> {
  const server = await startServer(ctx, kind, resourcesPath, extra);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

/** Runs `body` with a generator driving `server`, always stopping it. */
export async function withLoadgen<T>(
  ctx: BenchContext,
  server: ServerProcess,
  options: Partial<LoadgenOptions>,
  body: (loadgen: Loadgen) => Promise<T>,
): Promise<T> {
  const loadgen = startLoadgen(ctx, server, options);
  try {
    return await body(loadgen);
  } finally {
    await loadgen.quit();
  }
}

/** A generous deadline for a ramp of `n` streams on a 2-core machine. */
export function connectTimeoutMs(n: number): number {
  return Math.max(60_000, n * 40);
}
