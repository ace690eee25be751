/**
 * One process of a connection storm (storm.ts): `node --import tsx storm-worker.ts <json>`.
 * Prints `ready`, waits for a line on stdin, then makes `attempts` new connections at once
 * (each its own TCP connection and HTTP/2 session, as many sidecars starting together), each
 * opening an ADS stream with one request; waits for the first response, a status, a refusal
 * or `timeoutMs`, and prints one JSON line of counts. No gRPC library: raw HTTP/2, so a
 * worker's own overhead stays small.
 */
import { once } from 'node:events';
import * as http2 from 'node:http2';

export interface StormWorkerOptions {
  address: string;
  attempts: number;
  timeoutMs: number;
  /** A `DiscoveryRequest`, encoded (base64). */
  request: string;
}

export type AttemptOutcome =
  | { kind: 'answered'; ms: number }
  | { kind: 'status'; code: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'timedOut' };

export interface StormWorkerResult {
  counts: Record<string, number>;
  /** Milliseconds from dialling to the first response, of the answered attempts. */
  answeredMs: number[];
  wallMs: number;
}

const ADS_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function attempt(address: string, body: Buffer, timeoutMs: number): Promise<AttemptOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const session = http2.connect(`http://${address}`);
    const finish = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timedOut' }), timeoutMs);
    session.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'refused', reason: err.code ?? err.message }),
    );
    session.on('close', () => finish({ kind: 'refused', reason: 'connection closed' }));
    session.on('goaway', () => finish({ kind: 'refused', reason: 'GOAWAY' }));
    const stream = session.request({
      ':method': 'POST',
      ':path': ADS_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    stream.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'refused', reason: err.code ?? err.message }),
    );
    const status = (headers: http2.IncomingHttpHeaders) => {
      const code = headers['grpc-status'];
      if (code !== undefined && code !== '0') finish({ kind: 'status', code: String(code) });
    };
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('data', () => finish({ kind: 'answered', ms: Date.now() - started }));
    stream.on('close', () => finish({ kind: 'refused', reason: 'stream closed' }));
    stream.write(body);
  });
}

async function runAttempts(options: StormWorkerOptions): Promise<StormWorkerResult> {
  const body = frame(Buffer.from(options.request, 'base64'));
  const started = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: options.attempts }, () =>
      attempt(options.address, body, options.timeoutMs),
    ),
  );
  const counts: Record<string, number> = {};
  const answeredMs: number[] = [];
  for (const o of outcomes) {
    const key =
      o.kind === 'status'
        ? `status ${o.code}`
        : o.kind === 'refused'
          ? `refused ${o.reason}`
          : o.kind;
    counts[key] = (counts[key] ?? 0) + 1;
    if (o.kind === 'answered') answeredMs.push(o.ms);
  }
  return { counts, answeredMs, wallMs: Date.now() - started };
}

const options = JSON.parse(process.argv[2] ?? '{}') as StormWorkerOptions;
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
process.stdout.write(JSON.stringify(await runAttempts(options)) + '\n');
