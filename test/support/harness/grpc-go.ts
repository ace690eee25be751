/**
 * grpc-go's own xDS client and server (examples/grpc-xds-go), built with the machine's
 * `go` from the modules its go.sum pins (google.golang.org/grpc with its xds package), cached
 * by the hash of its sources; and the processes a test runs, each killed after its test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../../src/util/wait.js';
import { buildGoProgram } from './go-build.js';

const SOURCE = fileURLToPath(new URL('../../../examples/grpc-xds-go/', import.meta.url));

/** The built program's path (built now when its sources changed; minutes on a cold cache). */
export function buildGrpcXdsGo(): Promise<string> {
  return buildGoProgram({
    source: SOURCE,
    name: 'grpc-xds-go',
    needs: 'the grpc-go proxyless tests',
    modules: true,
    timeoutMs: 600_000,
  });
}

/** One RPC's outcome as the client prints it. */
export interface RpcResult {
  ok: boolean;
  reply?: string;
  code?: string;
  error?: string;
  ms: number;
}

export interface GoProcess {
  child: ChildProcess;
  /** The complete JSON lines printed so far. */
  lines(): unknown[];
  stderr(): string;
  /** Resolves with the exit code once it has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

const running = new Set<GoProcess>();

/** Starts the program with `GRPC_XDS_BOOTSTRAP` pointing at `bootstrapFile`. */
export function startGrpcXdsGo(binary: string, args: string[], bootstrapFile: string): GoProcess {
  const child = spawn(binary, args, {
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      GRPC_XDS_BOOTSTRAP: bootstrapFile,
      GRPC_GO_LOG_SEVERITY_LEVEL: 'warning',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-20_000)));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const proc: GoProcess = {
    child,
    lines: () =>
      out
        .split('\n')
        .slice(0, -1)
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as unknown),
    stderr: () => err,
    exited,
    stop: async () => {
      running.delete(proc);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  running.add(proc);
  return proc;
}

/** Stops every process started and not stopped yet (for afterEach). */
export async function stopAllGrpcXdsGo(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

/** Runs the client to its end and returns each RPC's outcome. */
export async function runGrpcClient(
  binary: string,
  args: string[],
  bootstrapFile: string,
  timeoutMs = 60_000,
): Promise<RpcResult[]> {
  const proc = startGrpcXdsGo(binary, ['client', ...args], bootstrapFile);
  const timer = setTimeout(() => void proc.stop(), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  running.delete(proc);
  if (code !== 0) throw new Error(`grpc-xds-go client exited ${code}: ${proc.stderr()}`);
  return proc.lines() as RpcResult[];
}

/** Waits for the server's `{"serving": …}` line. */
export async function serving(proc: GoProcess): Promise<void> {
  await waitFor(() => proc.lines().length > 0 || proc.child.exitCode !== null, {
    description: 'grpc-xds-go server to serve',
    timeoutMs: 20_000,
  });
  if (proc.child.exitCode !== null) {
    throw new Error(`grpc-xds-go server exited ${proc.child.exitCode}: ${proc.stderr()}`);
  }
}
