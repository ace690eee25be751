/**
 * The seed lab's upstream: an HTTP server that plays the application behind the sidecar
 * (the lab's `upstream.py <port> ok|fail|slow`). Every answer's body is `<mode>:<port> <path>`,
 * e.g. `ok:8101 /orders`, in every mode, as the lab states. The lab does not spell out the
 * status codes or the delay, so these are ours: `ok` answers 200, `fail` 500 and `slow` 200
 * after `slowMs` (default 2 s).
 *
 * Library: `startLabUpstream({ mode, port })`. Command line:
 *   npx tsx scripts/lab-upstream.ts --mode ok --port 8101 [--host 127.0.0.1] [--slow-ms 2000]
 *   npx tsx scripts/lab-upstream.ts 8101 ok          (the lab's positional form)
 */
import { createServer } from 'node:http';
import { isMainModule } from '../src/util/is-main.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

export type LabUpstreamMode = 'ok' | 'fail' | 'slow';

export const LAB_UPSTREAM_MODES: readonly LabUpstreamMode[] = ['ok', 'fail', 'slow'];

export interface LabUpstreamOptions {
  mode: LabUpstreamMode;
  /** 0 (the default) lets the OS choose a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Delay before a `slow` answer, in milliseconds (default 2000). */
  slowMs?: number;
}

export interface LabUpstream {
  port: number;
  /** `http://<host>:<port>`. */
  url: string;
  /** Stops listening and drops open connections (pending slow answers are never sent). */
  close(): Promise<void>;
}

const STATUS: Record<LabUpstreamMode, number> = { ok: 200, fail: 500, slow: 200 };

export async function startLabUpstream(options: LabUpstreamOptions): Promise<LabUpstream> {
  const { mode, port = 0, host = '127.0.0.1', slowMs = 2000 } = options;
  checkOptions(mode, port, slowMs);
  const timers = new Set<NodeJS.Timeout>();
  let boundPort = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = () => {
      res.writeHead(STATUS[mode], { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${mode}:${boundPort} ${req.url ?? '/'}`);
    };
    if (mode !== 'slow') return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, slowMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { port: boundPort, url: `http://${urlHost}:${boundPort}`, close };
}

function checkOptions(mode: string, port: number, slowMs: number): void {
  if (!(LAB_UPSTREAM_MODES as readonly string[]).includes(mode)) {
    throw new Error(`mode must be one of ${LAB_UPSTREAM_MODES.join(', ')}, got '${mode}'`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`port must be an integer from 0 to 65535, got ${port}`);
  }
  if (!Number.isInteger(slowMs) || slowMs < 0) {
    throw new Error(`slowMs must be a non-negative integer, got ${slowMs}`);
  }
}

/** Parses the command line (flags, or the lab's positional `<port> <mode>`). */
export function parseLabUpstreamArgs(argv: readonly string[]): LabUpstreamOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'slow-ms': { type: 'string' },
    },
  });
  const mode = values.mode ?? positionals[1] ?? 'ok';
  checkOptions(mode, 0, 0);
  return {
    mode: mode as LabUpstreamMode,
    port: toInteger('--port', values.port ?? positionals[0] ?? '0'),
    host: values.host ?? '127.0.0.1',
    slowMs: toInteger('--slow-ms', values['slow-ms'] ?? '2000'),
  };
}

function toInteger(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} must be a non-negative integer, got '${text}'`);
  return Number(text);
}

async function main(): Promise<void> {
  let upstream: LabUpstream;
  try {
    const options = parseLabUpstreamArgs(process.argv.slice(2));
    upstream = await startLabUpstream(options);
    console.log(`lab upstream (${options.mode}) listening on ${upstream.url}`);
  } catch (err) {
    console.error(`lab-upstream: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
  const stop = () => void upstream.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (isMainModule(import.meta.url)) await main();
