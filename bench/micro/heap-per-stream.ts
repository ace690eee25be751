/**
 * What an idle stream keeps on the heap: starts a server under benchmark (the mock's bench
 * entry or a floor) with `--heapsnapshot-signal`, connects fleets of idle SotW streams from
 * the Go load generator, writes a heap snapshot after each fleet (V8 collects garbage first)
 * and prints, per stream, the bytes of each constructor that grew between the first
 * snapshot and each later one (heap-diff.ts). Benchmark-only (build the generator with a
 * bench run first). A snapshot of 5,000 streams takes a few GB to read: give Node room with
 * `NODE_OPTIONS=--max-old-space-size=8000`.
 *
 *   npx tsx bench/micro/heap-per-stream.ts [mock|grpcjs|h2] [counts=0,1000] [outDir] [rows=30]
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JsonLineChild } from '../lib/child.js';
import { Loadgen } from '../lib/loadgen-process.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { heapGrowth } from './heap-diff.js';
import { rssBytes } from '../lib/proc.js';

const kind = process.argv[2] ?? 'mock';
const counts = (process.argv[3] ?? '0,1000').split(',').map(Number);
const outDir = resolve(process.argv[4] ?? `/tmp/heap-per-stream-${kind}`);
const rows = Number(process.argv[5] ?? 30);
mkdirSync(outDir, { recursive: true });
const root = resolve(import.meta.dirname, '../..');
const entry = { mock: 'mock-server.ts', grpcjs: 'floor-grpcjs.ts', h2: 'floor-h2.ts' }[kind];
if (!entry) throw new Error(`unknown server ${kind}: mock, grpcjs or h2`);

const resources = writeBenchResources(outDir, { clusters: 2 });
const server = new JsonLineChild(
  kind,
  process.execPath,
  [
    '--expose-gc',
    '--heapsnapshot-signal=SIGUSR2',
    '--import',
    pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
    join(root, 'bench/servers', entry),
    '--resources',
    resources,
  ],
  { cwd: outDir },
);

interface Stats {
  heapUsed: number;
  heapTotal: number;
  spaces: Record<string, { size: number; used: number }>;
}

async function stats(benchPort: number): Promise<Stats> {
  const res = await fetch(`http://127.0.0.1:${benchPort}/bench/stats?gc=1`);
  return (await res.json()) as Stats;
}

/** Sends SIGUSR2 and waits for the new snapshot file to stop growing. */
async function snapshot(pid: number): Promise<string> {
  const before = new Set(readdirSync(outDir));
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  let file: string | undefined;
  let size = -1;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    file ??= readdirSync(outDir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    const now = statSync(join(outDir, file)).size;
    if (now === size && now > 0) return join(outDir, file);
    size = now;
  }
  throw new Error('no heap snapshot within 2 minutes');
}

try {
  const ready = await server.next<{ xdsPort: number; benchPort: number; pid: number }>(
    60_000,
    'ready line',
  );
  const loadgen = new Loadgen({
    bin: join(root, 'bench/.bin/loadgen'),
    target: `127.0.0.1:${ready.xdsPort}`,
    mode: 'sotw',
  });
  const snapshots: { streams: number; file: string }[] = [];
  try {
    let connected = 0;
    for (const n of counts) {
      if (n > connected) {
        const reply = await loadgen.connect(n - connected, 120_000);
        if (reply.acked !== n - connected) throw new Error(`only ${reply.acked} streams ACKed`);
        connected = n;
      }
      const { heapUsed, heapTotal, spaces } = await stats(ready.benchPort);
      // RSS before the snapshot, which makes the process touch memory of its own.
      const rss = rssBytes(server.pid);
      if (process.env.SMAPS) {
        const lines = readFileSync(`/proc/${server.pid}/smaps`, 'utf8').split('\n');
        const by = new Map<string, number>();
        let key = '';
        for (const line of lines) {
          const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
          if (m) {
            const size = (parseInt(m[2] as string, 16) - parseInt(m[1] as string, 16)) / 1024;
            key =
              m[3] ||
              (size === 256
                ? 'anon 256K (V8 page)'
                : size >= 65536
                  ? 'anon >=64M'
                  : `anon ${size >= 1024 ? 'MB' : 'KB'}-sized`);
          } else if (line.startsWith('Rss:'))
            by.set(key, (by.get(key) ?? 0) + Number(line.split(/\s+/)[1]));
        }
        console.log(
          '  smaps rss (MiB): ' +
            [...by]
              .filter(([, v]) => v > 2048)
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`)
              .join(', '),
        );
      }
      const file = await snapshot(server.pid);
      console.log(JSON.stringify({ streams: n, heapUsed, heapTotal, rss, snapshot: file }));
      // Committed / live per space (MiB): what of the RSS is V8's heap, and which part of it.
      const mib = (b: number) => (b / 2 ** 20).toFixed(1);
      console.log(
        `  spaces: ${Object.entries(spaces)
          .map(([space, s]) => `${space} ${mib(s.size)}/${mib(s.used)}`)
          .join(', ')}`,
      );
      snapshots.push({ streams: n, file });
    }
  } finally {
    await loadgen.quit();
  }
  const [first, ...later] = snapshots;
  for (const next of later) {
    if (!first) break;
    const streams = next.streams - first.streams;
    console.log(`\n${first.streams} -> ${next.streams} streams, per stream: bytes, objects`);
    for (const row of heapGrowth(first.file, next.file, streams).slice(0, rows)) {
      const [bytes, count] = [row.bytes.toFixed(0).padStart(8), row.count.toFixed(2).padStart(7)];
      console.log(`${bytes} ${count}  ${row.label}`);
    }
  }
} finally {
  await server.stop();
}
