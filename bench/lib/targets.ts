/**
 * The targets of issue 39 (performance round 4), checked against a run's results: the
 * connect path, a small push's CPU per response and memory per idle stream against a bare
 * grpc-js server; the reconnect storm against go-control-plane; and the leads that must hold
 * (the fan-out push, 10,000 clusters, the slow consumer). Each is a ratio of two figures taken
 * in the same run, as absolute times do not hold on a shared machine. Start-up's targets are
 * checked under its own table (start-up-report.ts).
 */
import type { BenchReport } from './bench-report.js';
import type { FleetRun } from '../scenarios/fleet.js';
import type { SetSizeRun } from '../scenarios/set-size.js';
import type { SlowConsumerRun } from '../scenarios/slow-consumer.js';
import type { StormResults } from '../scenarios/storm.js';

export interface TargetCheck {
  target: string;
  /** Undefined: this run did not measure it (e.g. the quick profile stays below 5,000 streams). */
  met: boolean | undefined;
  detail: string;
}

function ok<T extends object>(value: T | { error: string } | undefined): T | undefined {
  return value === undefined || 'error' in value ? undefined : value;
}

const count = (n: number) => n.toLocaleString('en-US');
const times = (ratio: number) => `${ratio.toFixed(2)}×`;
/** A figure as the tables print it: whole above 100, one decimal below. */
const figure = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(1));

/** One check over several same-run pairs (say SotW and delta): met when every pair is. */
function ratioCheck(
  target: string,
  limit: number,
  pairs: readonly { label: string; ours: number; theirs: number; unit: string }[],
  measured: boolean,
  strict = false,
): TargetCheck | undefined {
  if (pairs.length === 0) return undefined;
  const within = (p: (typeof pairs)[number]) =>
    strict ? p.ours / p.theirs < limit : p.ours / p.theirs <= limit;
  return {
    target,
    met: measured ? pairs.every(within) : undefined,
    detail: pairs
      .map(
        (p) =>
          `${p.label}${figure(p.ours)} vs ${figure(p.theirs)} ${p.unit} (${times(p.ours / p.theirs)})`,
      )
      .join('; '),
  };
}

function fleetChecks(runs: readonly FleetRun[], memory: FleetMemory): TargetCheck[] {
  const at = (kind: string, n: number, mode: string) =>
    runs.find((r) => r.server === kind && r.mode === mode && r.streams === n);
  const pairsOf = (n: number, pick: (r: FleetRun) => number | null | undefined, unit: string) =>
    (['sotw', 'delta'] as const).flatMap((mode) => {
      const [ours, theirs] = [at('mock', n, mode), at('grpcjs', n, mode)].map((r) => r && pick(r));
      return ours && theirs ? [{ label: `${mode} `, ours, theirs, unit }] : [];
    });
  const checks: (TargetCheck | undefined)[] = [];
  for (const n of [1_000, 5_000]) {
    checks.push(
      ratioCheck(
        `connect ramp, ${count(n)} streams: all initial configs ACKed ≤ 1.15× bare grpc-js`,
        1.15,
        pairsOf(n, (r) => r.ramp.allAckedMs, 'ms'),
        true,
      ),
      ratioCheck(
        `connect ramp, ${count(n)} streams: server CPU per connection ≤ 1.2× bare grpc-js`,
        1.2,
        pairsOf(n, (r) => Math.round((r.ramp.serverCpu / r.streams) * 1e6), 'µs'),
        true,
      ),
    );
  }
  const firstP50 = pairsOf(100, (r) => r.ramp.firstResponseP50, 'ms').filter((p) =>
    p.label.startsWith('sotw'),
  );
  checks.push(
    ratioCheck(
      'connect ramp, 100 streams: first response p50 ≤ 1.3× bare grpc-js',
      1.3,
      firstP50.map((p) => ({ ...p, label: '' })),
      true,
    ),
  );
  for (const n of [1_000, 5_000]) {
    const pairs = (['sotw', 'delta'] as const).flatMap((mode) => {
      const [ours, theirs] = [at('mock', n, mode)?.push, at('peer', n, mode)?.push];
      return ours && theirs
        ? [{ label: `${mode} `, ours: ours.allAckedMs, theirs: theirs.allAckedMs, unit: 'ms' }]
        : [];
    });
    checks.push(
      ratioCheck(
        `lead kept: fan-out push, ${count(n)} streams, all ACKed level with go-control-plane or ahead (≤ 1.1×)`,
        1.1,
        pairs,
        true,
      ),
    );
  }
  const [ours, theirs] = [memory.mock, memory.grpcjs];
  if (ours && theirs) {
    checks.push(
      ratioCheck(
        'memory per idle stream (RSS) ≤ 1.15× bare grpc-js',
        1.15,
        [
          {
            label: '',
            ours: round1(ours.rss / 1000),
            theirs: round1(theirs.rss / 1000),
            unit: 'KB',
          },
        ],
        true,
      ),
    );
  }
  return checks.filter((c): c is TargetCheck => c !== undefined);
}

type FleetMemory = Partial<Record<string, { rss: number; heapUsed: number }>>;

const round1 = (n: number) => Math.round(n * 10) / 10;

function stormChecks(storm: StormResults): TargetCheck[] {
  const checks: (TargetCheck | undefined)[] = [];
  // The target is the 5,000-stream storm's; the smaller storm and the real Envoys' are in the
  // results table.
  const n = 5_000;
  const pairs = (['sotw', 'delta'] as const).flatMap((mode) => {
    const find = (kind: string) =>
      storm.runs.find((r) => r.server === kind && r.mode === mode && r.streams === n);
    const [ours, theirs] = [find('mock')?.median.allAckedMs, find('peer')?.median.allAckedMs];
    return ours && theirs ? [{ label: `${mode} `, ours, theirs, unit: 'ms' }] : [];
  });
  checks.push(
    ratioCheck(
      `reconnect storm, ${count(n)} streams: \`up\` until all ACKed again ≤ 1.3× go-control-plane`,
      1.3,
      pairs,
      true,
    ),
  );
  return checks.filter((c): c is TargetCheck => c !== undefined);
}

/**
 * A small push (the smallest set): the server's CPU per response sent, its ACK included,
 * against the grpc-js floor's per response it writes; and the largest set's push against
 * go-control-plane, a lead to keep.
 */
function sizeChecks(runs: readonly SetSizeRun[]): TargetCheck[] {
  const checks: (TargetCheck | undefined)[] = [];
  const smallest = Math.min(...runs.map((r) => r.clusters));
  const largest = Math.max(...runs.map((r) => r.clusters));
  const find = (kind: string, clusters: number) =>
    runs.find((r) => r.server === kind && r.clusters === clusters);
  const [ours, floor] = [find('mock', smallest), find('grpcjs', smallest)];
  if (ours && floor) {
    checks.push(
      ratioCheck(
        `push, ${count(smallest)} clusters: server CPU per response sent, with its ACK, ≤ 2× bare grpc-js's`,
        2,
        [
          {
            label: '',
            ours: ours.push.serverCpuPerResponseUs,
            theirs: floor.push.serverCpuPerResponseUs,
            unit: 'µs',
          },
        ],
        true,
      ),
    );
  }
  const [big, peer] = [find('mock', largest), find('peer', largest)];
  if (big && peer && largest >= 10_000) {
    checks.push(
      ratioCheck(
        `lead kept: push, ${count(largest)} clusters, all ACKed ahead of go-control-plane`,
        1,
        [{ label: '', ours: big.push.allAckedMs, theirs: peer.push.allAckedMs, unit: 'ms' }],
        true,
        true,
      ),
    );
  }
  return checks.filter((c): c is TargetCheck => c !== undefined);
}

/** The slow consumer: the other streams' ACK p99 after one stops reading, against the peer's. */
function slowChecks(runs: readonly SlowConsumerRun[]): TargetCheck[] {
  const [ours, theirs] = [
    runs.find((r) => r.server === 'mock'),
    runs.find((r) => r.server === 'peer'),
  ];
  const check =
    ours &&
    theirs &&
    ratioCheck(
      'lead kept: slow consumer, the others’ ACK p99 after one stream stops reading, ahead of go-control-plane',
      1,
      [{ label: '', ours: ours.after.p99, theirs: theirs.after.p99, unit: 'ms' }],
      true,
      true,
    );
  return check ? [check] : [];
}

export function checkTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const fleet = ok(report.results.fleet);
  if (fleet) {
    checks.push(...fleetChecks(fleet.runs, fleet.memoryPerStream));
    const mock = fleet.runs.filter((r) => r.server === 'mock');
    const largest = Math.max(...mock.map((r) => r.streams));
    const big = mock.filter((r) => r.streams === largest);
    if (big.length > 0) {
      const clean = big.every(
        (r) => r.ramp.acked === r.streams && r.ramp.errors === 0 && (r.push?.incomplete ?? 0) === 0,
      );
      checks.push({
        target: '5,000 concurrent streams with no errors',
        met: largest >= 5_000 ? clean : undefined,
        detail:
          big
            .map((r) => `${r.mode}: ${r.ramp.acked}/${r.streams} ACKed, ${r.ramp.errors} errors`)
            .join('; ') + (largest < 5_000 ? ` (this profile stops at ${count(largest)})` : ''),
      });
    }
  }
  const sizes = ok(report.results.sizes);
  if (sizes) checks.push(...sizeChecks(sizes));
  const slow = ok(report.results.slow);
  if (slow) checks.push(...slowChecks(slow));
  const storm = ok(report.results.storm);
  if (storm) checks.push(...stormChecks(storm));
  return checks;
}
