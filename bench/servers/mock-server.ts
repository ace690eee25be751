/**
 * The mock under benchmark, in a process of its own: `createMockIstiod` exactly as
 * `mock-istiod serve` builds it (control API on, journal and metrics on, logging at warn),
 * serving a resource set read from a JSON file, plus a benchmark-only HTTP API on another
 * port. Nothing here is part of the product: the hooks (forced GC, heap and event-loop
 * figures, a push trigger) live only in this entry point, which the harness starts with
 * `node --expose-gc --import tsx bench/servers/mock-server.ts --resources <file>`.
 *
 * Prints one JSON line on stdout once it listens: `{"xdsPort":…,"benchPort":…,"pid":…}`.
 * The same bench routes as the Go peer (bench/peers/go-control-plane/bench.go).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createMockIstiod } from '../../src/app/mock-istiod.js';
import { type MockIstiod } from '../../src/app/mock-istiod-api.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { encodeResponseBody } from '../../src/xds/wire.js';
import { changeOneCluster } from '../lib/resource-set.js';
import { cpuProfile } from '../lib/cpu-profile.js';
import { heapSpaces } from '../lib/heap-spaces.js';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    'bench-port': { type: 'string', default: '0' },
    resources: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    // Off by default: the benches measure how fast the mock takes streams in, not istiod's
    // connection rate limit (connect-storm.ts --max-streams-per-second measures that).
    'max-streams-per-second': { type: 'string', default: '0' },
  },
});
if (!values.resources) {
  process.stderr.write('mock-server: --resources <file.json> is required\n');
  process.exit(2);
}

grpc.setLogVerbosity(grpc.logVerbosity.NONE);
let resources = JSON.parse(readFileSync(values.resources, 'utf8')) as Record<string, unknown>[];
const server = createMockIstiod({
  xds: { host: values.host, port: Number(values.port) },
  control: { host: values.host, port: 0 },
  resources,
  logger: pino({ level: values['log-level'] }, pino.destination(2)),
  maxStreamsPerSecond: Number(values['max-streams-per-second']),
});

// The event loop's delay, sampled every 2 ms; reset by `GET /bench/stats?reset=1`. Sampling
// wakes the loop 500 times a second (12 ms of CPU a second, counted in the CPU figures),
// and keeps the process awake between pushes: on a loaded machine a mock that sleeps
// between pushes answers the next one up to three times slower (docs/BENCHMARKS.md).
const loopDelay = monitorEventLoopDelay({ resolution: 2 });
loopDelay.enable();
let pushes = 0;

/** Installs the next change; `ms` is its wall time and `cpuMs` the CPU it took (getrusage). */
async function push(istiod: MockIstiod): Promise<{ version: string; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  pushes += 1;
  resources = changeOneCluster(resources, pushes);
  // A refusal throws CONTROL_REFUSED with every problem.
  const answer = await istiod.control.setResources({ resources });
  const version = 'version' in answer ? answer.version : '';
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { version, ms, cpuMs: (user + system) / 1000 };
}

function stats(url: URL) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (url.searchParams.get('gc') === '1' && gc) {
    gc();
    gc();
  }
  const memory = process.memoryUsage();
  const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;
  const eventLoop = {
    p50: ms(loopDelay.percentile(50)),
    p99: ms(loopDelay.percentile(99)),
    max: ms(loopDelay.max),
    samples: loopDelay.count,
  };
  if (url.searchParams.get('reset') === '1') loopDelay.reset();
  return {
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    arrayBuffers: memory.arrayBuffers,
    streams: server.streams().length,
    eventLoop,
    spaces: heapSpaces(),
  };
}

/** Encodes the whole CDS response body `reps` times, as the snapshot does once per version. */
function encode(url: URL) {
  const reps = Math.max(1, Number(url.searchParams.get('reps') ?? 5) || 5);
  const snapshot = server.snapshot().get(CLUSTER_TYPE);
  const list = [...snapshot.resources.values()];
  // One encode first, untimed: protobufjs generates a type's encoder the first time it is
  // needed (src/xds/codecs.ts), and that is start-up's cost, not an encode's.
  encodeResponseBody(snapshot.version, CLUSTER_TYPE, list, 'mock-istiod');
  const started = performance.now();
  let bytes = 0;
  for (let i = 0; i < reps; i++) {
    bytes = encodeResponseBody(snapshot.version, CLUSTER_TYPE, list, 'mock-istiod').length;
  }
  return { ms: (performance.now() - started) / reps, bytes };
}

async function handle(req: IncomingMessage, url: URL): Promise<unknown> {
  if (req.method === 'POST' && url.pathname === '/bench/push') return push(server);
  if (req.method === 'GET' && url.pathname === '/bench/stats') return stats(url);
  if (req.method === 'GET' && url.pathname === '/bench/encode') return encode(url);
  if (req.method === 'POST' && url.pathname.startsWith('/bench/profile/')) return cpuProfile(url);
  throw Object.assign(new Error(`no route ${req.method} ${url.pathname}`), { status: 404 });
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://bench');
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  handle(req, url).then(
    (body) => send(200, body),
    (err: unknown) =>
      send((err as { status?: number }).status ?? 500, {
        error: err instanceof Error ? err.message : String(err),
      }),
  );
}

const started = await server.start();
const bench = createServer(route);
await new Promise<void>((resolve) =>
  bench.listen(Number(values['bench-port']), values.host, resolve),
);
process.stdout.write(
  `${JSON.stringify({
    xdsPort: started.xds.port,
    benchPort: (bench.address() as AddressInfo).port,
    controlPort: started.control?.port,
    pid: process.pid,
  })}\n`,
);

const stop = () => {
  bench.close();
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
