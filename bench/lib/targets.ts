/** The targets, checked against a run's results. */
import type { BenchReport } from './bench-report.js';
import type { FleetRun } from '../scenarios/fleet.js';

export interface TargetCheck {
  target: string;
  /** Undefined: this run did not measure it (e.g. the quick profile stays below 5,000 streams). */
  met: boolean | undefined;
  detail: string;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

function ok<T extends object>(value: T | { error: string } | undefined): T | undefined {
  return value === undefined || 'error' in value ? undefined : value;
}

export function checkTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const fleet = ok(report.results.fleet);
  if (fleet) {
    const at = (kind: string, n: number, mode = 'sotw') =>
      fleet.runs.find((r) => r.server === kind && r.mode === mode && r.streams === n);
    // The targets are about 1,000 and 5,000 streams; a profile with smaller fleets
    // (the quick one) reports them as not measured rather than as met or missed.
    const fanouts = [
      ...new Set(fleet.runs.filter((r) => r.push).map((r) => `${r.mode}:${r.streams}`)),
    ];
    for (const key of fanouts) {
      const [mode, n] = [key.split(':')[0] as string, Number(key.split(':')[1])];
      const [mock, peer] = [at('mock', n, mode)?.push, at('peer', n, mode)?.push];
      if (!mock || !peer) continue;
      checks.push({
        target: `fan-out to ${n.toLocaleString('en-US')} streams (${mode}) all ACKed faster than go-control-plane`,
        met: n >= 1_000 ? mock.allAckedMs < peer.allAckedMs : undefined,
        detail:
          `${mock.allAckedMs.toFixed(1)} ms vs ${peer.allAckedMs.toFixed(1)} ms ` +
          `(${(mock.allAckedMs / peer.allAckedMs).toFixed(2)}×, median over pushes of the last ACK)`,
      });
    }
    // Node's floor (issue 15): within 10 % of a bare node:http2 server in the same run.
    const floorCheck = (n: number, figure: string, pick: (r: FleetRun) => number | null) => {
      const [mock, floor] = [at('mock', n), at('h2', n)];
      const [ours, theirs] = [mock && pick(mock), floor && pick(floor)];
      if (!ours || !theirs) return;
      checks.push({
        target: `connect ramp, ${n.toLocaleString('en-US')} streams, ${figure} ≤ 1.1× a bare node:http2 server`,
        met: ours / theirs <= 1.1,
        detail: `${ours.toFixed(1)} ms vs ${theirs.toFixed(1)} ms (${(ours / theirs).toFixed(2)}×)`,
      });
    };
    floorCheck(1_000, 'all ACKed', (r) => r.ramp.allAckedMs);
    floorCheck(100, 'first response p50', (r) => r.ramp.firstResponseP50);
    const perStream = fleet.memoryPerStream.mock;
    const largestSotw = Math.max(
      ...fleet.runs.filter((r) => r.mode === 'sotw').map((r) => r.streams),
    );
    if (perStream) {
      checks.push({
        target: '≤ 30 KB per idle stream',
        // Over fleets of a few hundred streams, fixed allocations blur the slope.
        met: largestSotw >= 1_000 ? perStream.rss <= 30_000 : undefined,
        detail:
          `${kb(perStream.rss)} RSS, ${kb(perStream.heapUsed)} heap per stream` +
          (largestSotw < 1_000 ? ` (fleets up to ${largestSotw} streams only)` : ''),
      });
    }
    const largest = Math.max(
      ...fleet.runs.filter((r) => r.server === 'mock').map((r) => r.streams),
    );
    const big = fleet.runs.filter((r) => r.server === 'mock' && r.streams === largest);
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
            .join('; ') +
          (largest < 5_000 ? ` (this profile stops at ${largest.toLocaleString('en-US')})` : ''),
      });
    }
  }
  const sizes = ok(report.results.sizes);
  const [small, smallPeer] = ['mock', 'peer'].map((kind) =>
    sizes?.find((r) => r.server === kind && r.clusters === 10),
  );
  if (small && smallPeer) {
    const [ours, theirs] = [small.push.allAckedMs, smallPeer.push.allAckedMs];
    checks.push({
      target: `push, 10 clusters, ${small.streams} streams, all ACKed ≤ 1.0× go-control-plane`,
      met: small.streams >= 100 ? ours <= theirs : undefined,
      detail: `${ours.toFixed(1)} ms vs ${theirs.toFixed(1)} ms (${(ours / theirs).toFixed(2)}×)`,
    });
  }
  const envoy = ok(report.results.envoy);
  if (envoy?.median.mock && envoy.median.static) {
    const over = envoy.median.mock / envoy.median.static - 1;
    checks.push({
      target: 'Envoy start-to-LIVE within 10% of the static-bootstrap floor',
      met: over <= 0.1,
      detail: `${envoy.median.mock.toFixed(0)} ms vs ${envoy.median.static.toFixed(0)} ms (${over >= 0 ? '+' : ''}${(over * 100).toFixed(1)}%)`,
    });
  }
  return checks;
}
