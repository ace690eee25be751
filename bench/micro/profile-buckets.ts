/**
 * Splits a `.cpuprofile` (from `connect-probe.ts --profile`, the bench API or `--cpu-prof`)
 * into the parts of a connection's cost that docs/BENCHMARKS.md names, per connection: each
 * sample goes to the innermost frame of the mock's own code on its stack (its callees in
 * protobufjs, prom-client or Node count with it), by the file and function that frame is in;
 * samples with none of the mock's code on the stack go to Node, grpc-js, GC and so on by
 * their leaf. The profiler's own work and idle time are left out.
 *
 *   npx tsx bench/micro/profile-buckets.ts ramp-mock.cpuprofile [connections=1000] [--top]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The bucket of the mock's own code a frame belongs to, or undefined when it is not the mock's. */
function ownBucket(frame: CallFrame): string | undefined {
  const m = /\/dist\/src\/(.*)\.js$/.exec(frame.url);
  if (!m || frame.url.includes('node_modules')) return undefined;
  const file = m[1] ?? '';
  const fn = frame.functionName;
  if (file === 'protocol/node-metadata') return 'node metadata typing';
  if (file === 'xds/node-bytes') return 'node parsing (decode, parseNode)';
  // The requests' own decoder: the node's fields and metadata, and the rest of a request.
  if (file === 'xds/wire-read') {
    return /node|struct|value|list|sorted/i.test(fn)
      ? 'node parsing (decode, parseNode)'
      : 'request decoding (the rest)';
  }
  if (
    /^xds\/wire(-delta)?$/.test(file) &&
    /^decode(WithNode|DiscoveryRequest|DeltaRequest)$/.test(fn)
  ) {
    return 'request decoding (the rest)';
  }
  if (file === 'protocol/node' || (file === 'xds/wire' && /node|struct|value|list/i.test(fn))) {
    return 'node parsing (decode, parseNode)';
  }
  if (file === 'xds/wire' && /decode/i.test(fn)) return 'request decoding (the rest)';
  if (file === 'journal/sent-resources') return 'debug views (sent-resources)';
  if (file.startsWith('journal/')) return 'journal';
  if (file.startsWith('metrics/')) return 'metrics';
  if (file === 'app/collisions') return 'collision index';
  if (file.startsWith('live/')) return 'UI hub (live/)';
  if (file.startsWith('snapshot/') || file === 'core/snapshot' || file === 'core/policy') {
    return 'snapshot lookup, per-node selection';
  }
  if (file === 'server/sotw-stream' && /classify|build/.test(fn)) {
    return 'snapshot lookup, per-node selection';
  }
  if (file.startsWith('xds/')) return 'first encode (wire, type units)';
  if (/authenticate|credentials|authorize|identity/i.test(fn) || file.startsWith('tls/')) {
    return 'authentication';
  }
  if (file === 'server/stream-log' || file.startsWith('util/log')) return 'logging';
  if (file.startsWith('faults/')) return 'fault engine';
  if (file === 'server/stream-writer' && /^(send|flush|sendOwed|write|afterSend)$/.test(fn)) {
    return 'writes: grpc-js sendMessage, Node HTTP/2 (from the stream)';
  }
  return 'stream, session, the rest of src/';
}

function leafBucket(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || (!url && /^\(/.test(functionName))) {
    return 'native, unattributed (program)';
  }
  if (url.includes('@grpc/grpc-js')) return 'grpc-js (call, interceptors, framing)';
  if (url.includes('protobufjs') || /\$decode$/.test(functionName)) return 'protobufjs';
  if (url.includes('/dist/bench/')) return 'the bench entry';
  return 'Node: sockets, HTTP/2, streams, events';
}

const [file, countArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!file) {
  process.stderr.write('usage: profile-buckets.ts <file.cpuprofile> [connections]\n');
  process.exit(2);
}
const top = process.argv.includes('--top');
const connections = Number(countArg ?? 1000);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) =>
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
);

const buckets = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const leaf = byId.get(id);
  if (!leaf) continue;
  if (leaf.callFrame.functionName === '(idle)') continue;
  let bucket: string | undefined;
  let inProfiler = false;
  // protobufjs decodes the node inside the request's generated decoder.
  let inNodeDecode = false;
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const frame = byId.get(cur)?.callFrame;
    if (!frame) break;
    if (frame.url === 'node:inspector' || frame.url.endsWith('inspector/promises'))
      inProfiler = true;
    if (!bucket && frame.functionName === 'Node$decode') inNodeDecode = true;
    if (!bucket) {
      bucket = ownBucket(frame);
      if (bucket === 'request decoding (the rest)' && inNodeDecode) {
        bucket = 'node parsing (decode, parseNode)';
      }
      if (bucket && top) {
        const key = `${bucket}: ${frame.url.replace(/.*\/dist\//, '')}:${frame.functionName}`;
        functions.set(key, (functions.get(key) ?? 0) + us);
      }
    }
  }
  if (inProfiler) continue;
  bucket ??= leafBucket(leaf.callFrame);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
  total += us;
}
const rows = [...buckets].sort((a, b) => b[1] - a[1]);
const per = (us: number) => (us / connections).toFixed(1).padStart(7);
process.stdout.write(`${file}: ${per(total)} µs per connection (${connections}), profiled\n`);
for (const [name, us] of rows) {
  process.stdout.write(`${per(us)} µs ${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}\n`);
}
if (top) {
  process.stdout.write('innermost functions of the mock, self and callees:\n');
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 80)) {
    process.stdout.write(`${per(us)} µs  ${name}\n`);
  }
}
