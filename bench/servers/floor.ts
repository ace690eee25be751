/**
 * What the two floor servers share (floor-h2.ts, floor-grpcjs.ts): the responses, encoded
 * once at start-up from the same resource file the mock serves, a request's `type_url` read
 * straight from its bytes, and the bench API: `/bench/stats` (the memory figures),
 * `/bench/push`, and `/bench/down` and `/bench/up` (the storm: the xDS port closed with every
 * connection, then opened again on the same address, as the peer's). A floor answers each type once per stream and ignores everything else
 * (ACKs); a push writes one pre-encoded CDS response, with a nonce of its own, to every open
 * stream. It is the least an ADS server on that stack can do, not an xDS server.
 * Benchmark-only code.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { validateSet } from '../../src/snapshot/validated-set.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { appendNonceField } from '../../src/xds/wire.js';
import { encodeDeltaResponseBody } from '../../src/xds/wire-delta.js';
import { cpuProfile } from '../lib/cpu-profile.js';
import { heapSpaces } from '../lib/heap-spaces.js';

export interface FloorArgs {
  host: string;
  resources: string;
}

export function floorArgs(name: string): FloorArgs {
  const { values } = parseArgs({
    options: { host: { type: 'string', default: '127.0.0.1' }, resources: { type: 'string' } },
  });
  if (!values.resources) {
    process.stderr.write(`${name}: --resources <file.json> is required\n`);
    process.exit(2);
  }
  return { host: values.host, resources: values.resources };
}

/** Complete responses (nonce included) by type URL, SotW and delta: the same bytes every time. */
export function floorResponses(file: string): {
  sotw: Map<string, Buffer>;
  delta: Map<string, Buffer>;
} {
  const validated = validateSet({
    name: 'default',
    resources: JSON.parse(readFileSync(file, 'utf8')) as unknown[],
  });
  if (!validated.ok) throw new Error(`${file}: ${validated.problems[0]?.message ?? 'invalid'}`);
  const snapshot = createSnapshotStore([validated.value]).current();
  const sotw = new Map<string, Buffer>();
  const delta = new Map<string, Buffer>();
  for (const typeUrl of snapshot.typeUrls()) {
    const types = snapshot.get(typeUrl);
    sotw.set(typeUrl, appendNonceField(types.body(), `floor-${typeUrl.length}`));
    const body = encodeDeltaResponseBody({
      systemVersion: types.version,
      typeUrl,
      resources: [...types.resources.values()],
      removed: [],
      controlPlaneId: 'floor',
    });
    delta.set(typeUrl, appendNonceField(body, `floor-${typeUrl.length}`));
  }
  return { sotw, delta };
}

/**
 * The `type_url` of a `DiscoveryRequest` (field 4) or `DeltaDiscoveryRequest` (field 2),
 * read from the top-level fields without decoding anything else.
 */
export function requestTypeUrl(bytes: Uint8Array, field: number): string {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      if (tag >>> 3 === field)
        return Buffer.from(bytes.buffer, bytes.byteOffset + at, length).toString();
      at += length;
    } else return '';
  }
  return '';
}

/**
 * One stream's answers: for a request's bytes, the response to send (the first request of
 * each type only), or undefined. `answers` are the responses of the stream's protocol.
 */
export function answerOnce(
  answers: ReadonlyMap<string, Buffer>,
  delta: boolean,
): (request: Uint8Array) => Buffer | undefined {
  const answered = new Set<string>();
  return (request) => {
    const typeUrl = requestTypeUrl(request, delta ? 2 : 4);
    const answer = answers.get(typeUrl);
    if (!answer || answered.has(typeUrl)) return undefined;
    answered.add(typeUrl);
    return answer;
  };
}

/** A writer for one open stream: gets a whole gRPC message (unframed). */
export type FloorWriter = (message: Buffer) => void;

/**
 * The open streams and what a push sends them: the CDS response of the stream's protocol,
 * encoded once at start, with a new nonce per push (one allocation per push, shared by every
 * stream). No resource is encoded again and nothing is kept per stream but the writer.
 */
export class FloorStreams {
  private readonly open = { sotw: new Set<FloorWriter>(), delta: new Set<FloorWriter>() };
  private pushes = 0;

  constructor(
    private readonly responses: { sotw: Map<string, Buffer>; delta: Map<string, Buffer> },
  ) {}

  /** Registers a stream's writer; returns the function that forgets it. */
  add(delta: boolean, write: FloorWriter): () => void {
    const set = delta ? this.open.delta : this.open.sotw;
    set.add(write);
    return () => set.delete(write);
  }

  push(): { streams: number } {
    this.pushes += 1;
    let streams = 0;
    for (const mode of ['sotw', 'delta'] as const) {
      const response = this.responses[mode].get(CLUSTER_TYPE);
      if (!response || this.open[mode].size === 0) continue;
      const message = appendNonceField(response, `push-${this.pushes}`);
      for (const write of this.open[mode]) write(message);
      streams += this.open[mode].size;
    }
    return { streams };
  }
}

/** How a floor closes its xDS port with every connection, and opens it again. */
export interface FloorOutage {
  down(): Promise<void>;
  up(): Promise<void>;
}

/**
 * The bench API the harness reads (stats after GC, the push trigger, the outage); prints the
 * ready line.
 * The event loop is sampled every 2 ms, as in the mock's bench entry, so that both processes
 * are kept awake alike between pushes.
 */
export async function announce(
  host: string,
  xdsPort: number,
  streams: FloorStreams,
  outage: FloorOutage,
): Promise<void> {
  const loopDelay = monitorEventLoopDelay({ resolution: 2 });
  loopDelay.enable();
  const bench = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && url.pathname === '/bench/push') {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const pushed = streams.push();
      const ms = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      send(200, { ...pushed, ms, cpuMs: (user + system) / 1000 });
      return;
    }
    if (req.method === 'POST' && (url.pathname === '/bench/down' || url.pathname === '/bench/up')) {
      const op = url.pathname === '/bench/down' ? outage.down() : outage.up();
      op.then(
        () => send(200, { ok: true }),
        (err: unknown) => send(500, { error: String(err) }),
      );
      return;
    }
    if (req.method === 'POST' && url.pathname.startsWith('/bench/profile/')) {
      cpuProfile(url).then(
        (body) => send(200, body),
        (err: unknown) => send(400, { error: String(err) }),
      );
      return;
    }
    if (url.pathname !== '/bench/stats') {
      send(404, { error: `no route ${req.method ?? ''} ${url.pathname} on a floor server` });
      return;
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    if (url.searchParams.get('gc') === '1' && gc) {
      gc();
      gc();
    }
    const { heapUsed, heapTotal } = process.memoryUsage();
    const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;
    const eventLoop = {
      p50: ms(loopDelay.percentile(50)),
      p99: ms(loopDelay.percentile(99)),
      max: ms(loopDelay.max),
    };
    if (url.searchParams.get('reset') === '1') loopDelay.reset();
    send(200, { heapUsed, heapTotal, eventLoop, spaces: heapSpaces() });
  });
  await new Promise<void>((resolve) => bench.listen(0, host, resolve));
  const benchPort = (bench.address() as AddressInfo).port;
  process.stdout.write(`${JSON.stringify({ xdsPort, benchPort, pid: process.pid })}\n`);
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
