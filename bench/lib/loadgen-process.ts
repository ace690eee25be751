/**
 * The Go load generator (bench/loadgen) as the harness drives it: one JSON command per
 * line on stdin, one JSON reply per line on stdout.
 */
import { JsonLineChild } from './child.js';
import { cpuSeconds } from './proc.js';

export interface Summary {
  count: number;
  mean?: number;
  p50?: number;
  p90?: number;
  p99?: number;
  max?: number;
}

export interface GeneratorErrors {
  count: number;
  samples: string[];
}

export interface ConnectReply {
  requested: number;
  acked: number;
  failed: number;
  timedOut: boolean;
  total: number;
  firstResponse: Summary;
  initAcked: Summary;
  allAckedMs?: number;
  errors: GeneratorErrors;
}

export interface PushReply {
  expected: number;
  acked: number;
  timedOut: boolean;
  httpMs: number;
  latency: Summary;
  errors: GeneratorErrors;
  /** Responses of every type the generator had received before this push was triggered. */
  responsesAtTrigger: number;
  error?: string;
}

export interface DropReply {
  streams: number;
  ended: number;
  httpMs: number;
  allEndedMs: number;
  timedOut: boolean;
  reasons: GeneratorErrors;
  error?: string;
}

export interface RejoinReply {
  expected: number;
  acked: number;
  timedOut: boolean;
  httpMs: number;
  /** Per stream, ms from just before `up` until its initial config was ACKed again. */
  latency: Summary;
  /** Per stream, ms from its new connection (after any backoff) until it ACKed again. */
  served: Summary;
  allAckedMs?: number;
  /** Connection attempts that waited a backoff (refused or reset) during the rejoin. */
  backoffs: number;
  errors: GeneratorErrors;
  error?: string;
}

export interface LoadgenOptions {
  bin: string;
  target: string;
  mode: 'sotw' | 'delta';
  /** HTTP/2 window in bytes (default: the generator's 1 MiB). */
  window?: number;
  dialConcurrency?: number;
  cpus?: string | undefined;
  /** Open a stream again after it ends, after a jittered wait of `backoffMs` (the storm). */
  reconnect?: boolean;
  backoffMs?: { min: number; max: number };
  /** More flags, e.g. `-cpuprofile <file>` to profile the generator itself. */
  extraArgs?: readonly string[];
}

export class Loadgen {
  private readonly child: JsonLineChild;

  constructor(options: LoadgenOptions) {
    const args = ['-target', options.target, '-mode', options.mode];
    if (options.window) args.push('-window', String(options.window));
    if (options.dialConcurrency) args.push('-dial-concurrency', String(options.dialConcurrency));
    if (options.reconnect) args.push('-reconnect');
    if (options.backoffMs) {
      args.push('-backoff-min-ms', String(options.backoffMs.min));
      args.push('-backoff-max-ms', String(options.backoffMs.max));
    }
    args.push(...(options.extraArgs ?? []));
    this.child = new JsonLineChild('loadgen', options.bin, args, { cpus: options.cpus });
  }

  get pid(): number {
    return this.child.pid;
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  async connect(n: number, timeoutMs: number): Promise<ConnectReply> {
    this.child.send({ cmd: 'connect', n, timeoutMs });
    return this.child.next<ConnectReply>(timeoutMs + 30_000, `connect reply (${n} streams)`);
  }

  async push(url: string, timeoutMs: number): Promise<PushReply> {
    this.child.send({ cmd: 'push', url, timeoutMs });
    return this.child.next<PushReply>(timeoutMs + 30_000, 'push reply');
  }

  /** POSTs `url` (the server's `down`) and waits until every stream has ended. */
  async drop(url: string, timeoutMs: number): Promise<DropReply> {
    this.child.send({ cmd: 'drop', url, timeoutMs });
    return this.child.next<DropReply>(timeoutMs + 30_000, 'drop reply');
  }

  /** POSTs `url` (the server's `up`) and times until every stream has ACKed its config again. */
  async rejoin(url: string, timeoutMs: number): Promise<RejoinReply> {
    this.child.send({ cmd: 'rejoin', url, timeoutMs });
    return this.child.next<RejoinReply>(timeoutMs + 30_000, 'rejoin reply');
  }

  async stall(n: number): Promise<{ stalled: number }> {
    this.child.send({ cmd: 'stall', n });
    return this.child.next(10_000, 'stall reply');
  }

  async quit(): Promise<void> {
    this.child.send({ cmd: 'quit' });
    await this.child.next(30_000, 'quit reply').catch(() => undefined);
    await this.child.stop();
  }
}
