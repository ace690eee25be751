/**
 * Starts a server under benchmark as its own process, the mock (Node, the compiled bench
 * entry bench/servers/mock-server.ts) or the go-control-plane peer (Go), and talks to its
 * benchmark API. Both print `{"xdsPort","benchPort","pid"}` once they listen.
 */
import { JsonLineChild } from './child.js';
import { cpuSeconds, rssBytes, threadCpuSeconds } from './proc.js';

/**
 * The mock, the go-control-plane peer, and two floors (bench/servers/floor-*.ts): a bare
 * `node:http2` and a bare grpc-js ADS server, which only answer each type once. Floors take
 * part in the connect ramp and the memory figure only (they have no pushes).
 */
export type ServerKind = 'mock' | 'peer' | 'h2' | 'grpcjs';

export const SERVER_KINDS: readonly ServerKind[] = ['mock', 'peer', 'h2', 'grpcjs'];

export const SERVER_LABELS: Record<ServerKind, string> = {
  mock: 'mock-istiod',
  peer: 'go-control-plane',
  h2: 'bare node:http2',
  grpcjs: 'bare grpc-js',
};

export const isFloor = (kind: ServerKind): boolean => kind === 'h2' || kind === 'grpcjs';

export interface ServerStats {
  heapUsed: number;
  heapTotal: number;
  /** Event-loop delay since the last reset, in ms (null for Go, which has no event loop). */
  eventLoop: { p50: number; p99: number; max: number } | null;
}

export interface StartServerOptions {
  kind: ServerKind;
  resourcesPath: string;
  rootDir: string;
  bins: { peer: string; mockServer: string; floorH2: string; floorGrpcjs: string };
  cpus?: string | undefined;
  /** The mock's connection rate limit (`maxStreamsPerSecond`); off (0) when absent. */
  maxStreamsPerSecond?: number;
  /** Node's or V8's flags for a Node server (e.g. `--trace-opt`); the peer ignores them. */
  nodeFlags?: readonly string[];
  /** Takes each line a server prints that is not JSON (a V8 trace); undefined: such a line fails. */
  onOtherLine?: (line: string) => void;
}

export class ServerProcess {
  private constructor(
    readonly kind: ServerKind,
    private readonly child: JsonLineChild,
    readonly xdsAddress: string,
    private readonly benchUrl: string,
    /** The mock's control API (`http://127.0.0.1:<port>`); the peer has none. */
    readonly controlUrl: string | undefined,
  ) {}

  static async start(options: StartServerOptions): Promise<ServerProcess> {
    const node = (entry: string, args: readonly string[] = []) =>
      new JsonLineChild(
        SERVER_LABELS[options.kind],
        process.execPath,
        [
          ...(options.nodeFlags ?? []),
          '--expose-gc',
          entry,
          '--resources',
          options.resourcesPath,
          ...args,
        ],
        { cwd: options.rootDir, cpus: options.cpus, onOtherLine: options.onOtherLine },
      );
    const rate = String(options.maxStreamsPerSecond ?? 0);
    const child =
      options.kind === 'mock'
        ? node(options.bins.mockServer, ['--max-streams-per-second', rate])
        : options.kind === 'h2'
          ? node(options.bins.floorH2)
          : options.kind === 'grpcjs'
            ? node(options.bins.floorGrpcjs)
            : new JsonLineChild(
                'go-control-plane peer',
                options.bins.peer,
                ['-resources', options.resourcesPath],
                {
                  cpus: options.cpus,
                },
              );
    try {
      const ready = await child.next<{ xdsPort: number; benchPort: number; controlPort?: number }>(
        60_000,
        'ready line',
      );
      return new ServerProcess(
        options.kind,
        child,
        `127.0.0.1:${ready.xdsPort}`,
        `http://127.0.0.1:${ready.benchPort}`,
        ready.controlPort === undefined ? undefined : `http://127.0.0.1:${ready.controlPort}`,
      );
    } catch (err) {
      await child.stop();
      throw err;
    }
  }

  get pid(): number {
    return this.child.pid;
  }

  get pushUrl(): string {
    return `${this.benchUrl}/bench/push`;
  }

  /**
   * Closes the xDS port and ends every open stream: the mock's own `down` operation (its
   * control API), the peer's `POST /bench/down` (its gRPC server stopped: listener and
   * connections closed). The floors have neither.
   */
  get downUrl(): string {
    return this.outageUrl('down');
  }

  /** Opens the xDS port again on the same address (`up`). */
  get upUrl(): string {
    return this.outageUrl('up');
  }

  private outageUrl(op: 'down' | 'up'): string {
    if (this.kind !== 'mock') return `${this.benchUrl}/bench/${op}`;
    if (this.controlUrl) return `${this.controlUrl}/control/${op}`;
    throw new Error(`${SERVER_LABELS[this.kind]} has no ${op} operation`);
  }

  /** POSTs `down` or `up` (the storm's Envoy variant; the generator POSTs them itself). */
  async outage(op: 'down' | 'up'): Promise<void> {
    const res = await fetch(this.outageUrl(op), {
      method: 'POST',
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw new Error(`${this.kind} ${op}: HTTP ${res.status} ${await res.text()}`);
    await res.body?.cancel();
  }

  /** POSTs to the server's bench API (`/bench/profile/start`, …); throws unless 2xx. */
  async benchPost(path: string): Promise<void> {
    const res = await fetch(`${this.benchUrl}${path}`, {
      method: 'POST',
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw new Error(`${this.kind} ${path}: HTTP ${res.status} ${await res.text()}`);
    await res.body?.cancel();
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  /** CPU seconds so far per thread name (see `threadCpuSeconds`). */
  threadCpuSeconds(): Map<string, number> {
    return threadCpuSeconds(this.pid);
  }

  rss(): number {
    return rssBytes(this.pid);
  }

  /** Heap (after a full GC when `gc`) and event-loop delay; `reset` restarts the delay histogram. */
  async stats(options: { gc?: boolean; reset?: boolean } = {}): Promise<ServerStats> {
    const query = new URLSearchParams();
    if (options.gc) query.set('gc', '1');
    if (options.reset) query.set('reset', '1');
    return this.get<ServerStats>(`/bench/stats?${query.toString()}`);
  }

  /** Mean time to encode the whole CDS response once, and its size in bytes. */
  encode(reps: number): Promise<{ ms: number; bytes: number }> {
    return this.get(`/bench/encode?reps=${reps}`);
  }

  private async get<T>(path: string): Promise<T> {
    const res = await fetch(`${this.benchUrl}${path}`, { signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`${this.kind} ${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
