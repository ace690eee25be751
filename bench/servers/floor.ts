/**
 * What the two floor servers share (floor-h2.ts, floor-grpcjs.ts): the responses, encoded
 * once at start-up from the same resource file the mock serves, a request's `type_url` read
 * straight from its bytes, and the bench API's `/bench/stats` (the memory figures). A floor
 * answers each type once per stream and ignores everything else (ACKs): it is the least an
 * ADS server on that stack can do, not an xDS server. Benchmark-only code.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { validateSet } from '../../src/snapshot/validated-set.js';
import { createSnapshotStore } from '../../src/snapshot/store.js';
import { appendNonceField } from '../../src/xds/wire.js';
import { encodeDeltaResponseBody } from '../../src/xds/wire-delta.js';

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

/** The bench API the harness reads (stats after GC); prints the ready line. */
export async function announce(host: string, xdsPort: number): Promise<void> {
  const bench = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    if (url.pathname !== '/bench/stats') {
      res.writeHead(404).end(JSON.stringify({ error: 'a floor server has no pushes' }));
      return;
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    if (url.searchParams.get('gc') === '1' && gc) {
      gc();
      gc();
    }
    const { heapUsed, heapTotal } = process.memoryUsage();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ heapUsed, heapTotal, eventLoop: null }));
  });
  await new Promise<void>((resolve) => bench.listen(0, host, resolve));
  const benchPort = (bench.address() as AddressInfo).port;
  process.stdout.write(`${JSON.stringify({ xdsPort, benchPort, pid: process.pid })}\n`);
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
