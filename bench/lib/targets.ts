/** The targets, checked against a run's results. */
import type { BenchReport } from './bench-report.js';

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
    const at = (kind: string, n: number) =>
      fleet.runs.find((r) => r.server === kind && r.mode === 'sotw' && r.streams === n);
    // The targets are about 1,000 and 5,000 streams; a profile with smaller fleets
    // (the quick one) reports them as not measured rather than as met or missed.
    const fanout = Math.min(...fleet.runs.filter((r) => r.push).map((r) => r.streams));
    const [mock, peer] = [at('mock', fanout)?.push, at('peer', fanout)?.push];
    if (mock && peer) {
      checks.push({
        target: 'fan-out to 1,000 streams all ACKed faster than go-control-plane',
        met: fanout === 1_000 ? mock.allAckedMs < peer.allAckedMs : undefined,
        detail:
          `${mock.allAckedMs.toFixed(1)} ms vs ${peer.allAckedMs.toFixed(1)} ms at ` +
          `${fanout.toLocaleString('en-US')} streams (median over pushes of the last ACK)`,
      });
    }
    const perStream = fleet.memoryPerStream.mock;
    const largestSotw = Math.max(
      ...fleet.runs.filter((r) => r.mode === 'sotw').map((r) => r.streams),
    );
    if (perStream) {
      checks.push({
        target: '≤ 50 KB per idle stream',
        // Over fleets of a few hundred streams, fixed allocations blur the slope.
        met: largestSotw >= 1_000 ? perStream.rss <= 50_000 : undefined,
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
