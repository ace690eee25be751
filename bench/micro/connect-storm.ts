/**
 * docs/RELIABILITY.md's connection storm, side by side: `attempts` new connections at once
 * (each its own TCP connection, HTTP/2 session and ADS stream with one CDS request), from
 * `workers` processes (test/support/harness/storm-worker.ts, the same workers as
 * `scripts/reliability.ts --only storm`), against the bench's mock and the go-control-plane
 * peer in turn, each a fresh server serving the bench's lab set. Prints, per server, what
 * the attempts ended with, the answered attempts' first-response p50 and p99, and the
 * server's CPU; with `--out <file>`, writes them as JSON too.
 *
 *   npx tsx bench/micro/connect-storm.ts [--attempts 20000] [--workers 4]
 *                                        [--timeout-ms 120000] [--servers mock,peer] [--out f]
 *                                        [--profile storm.cpuprofile]
 *                                        [--max-streams-per-second 25]
 *
 * `--max-streams-per-second` gives the mock istiod's connection rate limit (off, 0, by
 * default, as in every bench): refused attempts end RESOURCE_EXHAUSTED and are not retried.
 * `--profile` records a CPU profile of the mock over the storm through its bench API's
 * inspector (1 ms sampling; bench/micro/profile-buckets.ts reads it).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnWithRaisedFdLimit } from '../../test/support/fixtures/fd-limit.js';
import { encodedStormRequest } from '../../test/support/harness/storm.js';
import type {
  StormWorkerOptions,
  StormWorkerResult,
} from '../../test/support/harness/storm-worker.js';
import { buildBenchPrograms } from '../lib/build.js';
import { listenOverflows, round } from '../lib/proc.js';
import { percentile } from '../lib/stats.js';
import { writeBenchResources } from '../lib/resource-set.js';
import { ServerProcess, type ServerKind } from '../lib/server-process.js';

const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
const rootDir = dirname(benchDir);
const WORKER = join(rootDir, 'test/support/harness/storm-worker.ts');

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '20000' },
    workers: { type: 'string', default: '4' },
    'timeout-ms': { type: 'string', default: '120000' },
    servers: { type: 'string', default: 'mock,peer' },
    out: { type: 'string' },
    profile: { type: 'string' },
    'max-streams-per-second': { type: 'string', default: '0' },
  },
});
const maxStreamsPerSecond = Number(values['max-streams-per-second']);
if (!Number.isFinite(maxStreamsPerSecond) || maxStreamsPerSecond < 0) {
  process.stderr.write('connect-storm: --max-streams-per-second: a number, 0 or more\n');
  process.exit(2);
}
const attempts = Number(values.attempts);
const workerCount = Number(values.workers);
const timeoutMs = Number(values['timeout-ms']);
const servers = values.servers.split(',').map((s) => s.trim()) as ServerKind[];
if (![attempts, workerCount, timeoutMs].every((n) => Number.isInteger(n) && n > 0)) {
  process.stderr.write('connect-storm: --attempts, --workers, --timeout-ms: positive integers\n');
  process.exit(2);
}
if (servers.some((s) => s !== 'mock' && s !== 'peer')) {
  process.stderr.write(`connect-storm: --servers: mock and/or peer (got ${values.servers})\n`);
  process.exit(2);
}

/** Nearest-rank percentile of the answered times, or null when none was answered. */
function percentileOrNull(values: readonly number[], p: number): number | null {
  return values.length === 0 ? null : percentile(values, p);
}

export interface ConnectStormResult {
  server: ServerKind;
  attempts: number;
  wallMs: number;
  counts: Record<string, number>;
  answered: number;
  firstResponseP50Ms: number | null;
  firstResponseP99Ms: number | null;
  serverCpu: number;
  /** SYNs the kernel dropped from a full accept queue meanwhile (machine-wide count). */
  listenOverflows: number;
  /** The mock's event-loop delay over the storm, ms (null for the peer, which has none). */
  eventLoopDelay: { p99: number; max: number } | null;
}

async function stormOne(kind: ServerKind, resourcesPath: string): Promise<ConnectStormResult> {
  const bins = buildBenchPrograms(benchDir);
  const server = await ServerProcess.start({
    kind,
    resourcesPath,
    rootDir,
    bins,
    maxStreamsPerSecond,
  });
  const workers: ChildProcess[] = [];
  try {
    const per = Math.ceil(attempts / workerCount);
    const request = encodedStormRequest();
    const lines = [];
    for (let i = 0; i < workerCount; i++) {
      const args: StormWorkerOptions = {
        address: server.xdsAddress,
        attempts: Math.min(per, attempts - i * per),
        timeoutMs,
        request,
      };
      const worker = spawnWithRaisedFdLimit(
        process.execPath,
        ['--import', 'tsx', WORKER, JSON.stringify(args)],
        { cwd: rootDir, stdio: ['pipe', 'pipe', 'inherit'] },
      );
      workers.push(worker);
      lines.push(createInterface({ input: worker.stdout! })[Symbol.asyncIterator]());
    }
    for (const line of lines) await line.next(); // every worker is ready
    const profile = kind === 'mock' && values.profile ? resolve(values.profile) : undefined;
    if (profile) await server.benchPost('/bench/profile/start?intervalUs=1000');
    if (kind === 'mock') await server.stats({ reset: true });
    const [cpu0, overflows0] = [server.cpuSeconds(), listenOverflows()];
    const started = Date.now();
    for (const w of workers) w.stdin?.write('go\n');
    const done = await Promise.all(
      lines.map(
        async (line) => JSON.parse((await line.next()).value as string) as StormWorkerResult,
      ),
    );
    const wallMs = Date.now() - started;
    const serverCpu = round(server.cpuSeconds() - cpu0);
    const overflows = listenOverflows() - overflows0;
    if (profile) await server.benchPost(`/bench/profile/stop?file=${encodeURIComponent(profile)}`);
    const loop = kind === 'mock' ? (await server.stats()).eventLoop : null;
    const counts: Record<string, number> = {};
    for (const r of done)
      for (const [k, n] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + n;
    const answeredMs = done.flatMap((r) => r.answeredMs).sort((a, b) => a - b);
    return {
      server: kind,
      attempts,
      wallMs,
      counts,
      answered: answeredMs.length,
      firstResponseP50Ms: percentileOrNull(answeredMs, 50),
      firstResponseP99Ms: percentileOrNull(answeredMs, 99),
      serverCpu,
      listenOverflows: overflows,
      eventLoopDelay: loop && { p99: loop.p99, max: loop.max },
    };
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await server.stop();
  }
}

const workDir = mkdtempSync(join(tmpdir(), 'mock-istiod-connect-storm-'));
try {
  const resourcesPath = writeBenchResources(workDir, { clusters: 2 });
  const results: ConnectStormResult[] = [];
  for (const kind of servers) {
    process.stdout.write(
      `connect storm: ${attempts} attempts at once from ${workerCount} processes against ${kind}, each waiting up to ${timeoutMs} ms` +
        (kind === 'mock' && maxStreamsPerSecond > 0
          ? ` (the mock lets in ${maxStreamsPerSecond} new streams a second)\n`
          : '\n'),
    );
    const r = await stormOne(kind, resourcesPath);
    process.stdout.write(
      `  ${r.wallMs} ms; answered ${r.answered} (first response p50 ${r.firstResponseP50Ms} ms, p99 ${r.firstResponseP99Ms} ms); ` +
        `outcomes ${JSON.stringify(r.counts)}; server CPU ${r.serverCpu} s; SYNs dropped (accept queue full) ${r.listenOverflows}` +
        (r.eventLoopDelay
          ? `; event-loop delay p99 ${r.eventLoopDelay.p99} ms, max ${r.eventLoopDelay.max} ms`
          : '') +
        '\n',
    );
    results.push(r);
  }
  if (values.out) writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
