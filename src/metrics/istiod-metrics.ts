/**
 * The metrics istiod exports that a mock can honestly produce, with istiod's names, help
 * texts, label names and histogram buckets (pilot/pkg/xds/monitoring.go and
 * pkg/xds/monitoring.go in istio/istio). istiod exports through OpenTelemetry's Prometheus
 * exporter with counter suffixes off, so its counters carry no `_total`; neither do these.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { metricLabel, rankedTypes } from '../core/types/registry.js';
import { grpcCodeName } from './grpc-codes.js';
import { FastHistogram, PendingCounts } from './fast-metrics.js';

/** istiod's buckets, in seconds or bytes. */
export const PUSH_TIME_BUCKETS = [0.01, 0.1, 0.5, 1, 3, 5, 10, 20, 30];
export const CONVERGENCE_BUCKETS = [0.1, 0.5, 1, 3, 5, 10, 20, 30];
export const CONFIG_SIZE_BUCKETS = [1, 10_000, 1_000_000, 4_000_000, 10_000_000, 40_000_000];

export interface IstiodMetrics {
  /** A proxy connected (+1) or went away (-1); `version` is its `ISTIO_VERSION`. */
  connected(istioVersion: string, delta: 1 | -1): void;
  /** A response was written. */
  pushed(typeUrl: string, seconds: number | undefined, bytes: number): void;
  /** A NACK: `node` is the proxy id (`<pod>.<namespace>`), `code` Envoy's error code. */
  rejected(typeUrl: string, node: string, code: number): void;
  expiredNonce(typeUrl: string): void;
  /** A proxy got every type a change concerned, `seconds` after the change. */
  converged(seconds: number): void;
}

/**
 * istiod's metric definitions, registered in `registry`. The three histograms every response
 * feeds are {@link FastHistogram}s, and the push counter takes `pendingPushes` in when read.
 */
function defineMetrics(
  registry: Registry,
  pendingPushes: PendingCounts,
  byVersion: ReadonlyMap<string, number>,
) {
  const registers = [registry];
  const xds = new Gauge({
    name: 'pilot_xds',
    help: 'Number of endpoints connected to this pilot using XDS.',
    labelNames: ['version'],
    registers,
    // Set when read, from the running counts: a connect or a close is a map update, not a
    // prom-client label lookup (docs/BENCHMARKS.md, "Where a connection's time goes").
    collect() {
      for (const [version, count] of byVersion) this.set({ version }, count);
    },
  });
  const pushes = new Counter({
    name: 'pilot_xds_pushes',
    help: 'Pilot build and send errors for lds, rds, cds and eds.',
    labelNames: ['type'],
    registers,
    collect() {
      pendingPushes.flush(this);
    },
  });
  const pushTime = new FastHistogram(
    'pilot_xds_push_time',
    'Total time in seconds Pilot takes to push lds, rds, cds and eds.',
    PUSH_TIME_BUCKETS,
    registry,
    'type',
  );
  const configSize = new FastHistogram(
    'pilot_xds_config_size_bytes',
    'Distribution of configuration sizes pushed to clients',
    CONFIG_SIZE_BUCKETS,
    registry,
    'type',
  );
  const convergence = new FastHistogram(
    'pilot_proxy_convergence_time',
    'Delay in seconds between config change and a proxy receiving all required configuration.',
    CONVERGENCE_BUCKETS,
    registry,
  );
  const totalRejects = new Counter({
    name: 'pilot_total_xds_rejects',
    help: 'Total number of XDS responses from pilot rejected by proxy.',
    labelNames: ['type'],
    registers,
  });
  const expired = new Counter({
    name: 'pilot_xds_expired_nonce',
    help: 'Total number of XDS requests with an expired nonce.',
    labelNames: ['type'],
    registers,
  });
  // Kept by istiod "for backwards compatibility": gauges, incremented per NACK.
  const perTypeRejects = new Map<string, Gauge>(
    rankedTypes((t) => (t.rejectGauge ? t.adsOrder : undefined)).flatMap(
      ({ typeUrl, rejectGauge }) =>
        rejectGauge
          ? [[typeUrl, new Gauge({ ...rejectGauge, labelNames: ['node', 'err'], registers })]]
          : [],
    ),
  );
  return { xds, pushes, pushTime, configSize, convergence, totalRejects, expired, perTypeRejects };
}

export function createIstiodMetrics(registry: Registry): IstiodMetrics {
  const pushes = new PendingCounts(['type']);
  // istiod keeps a running count per version and never drops a label once seen.
  const byVersion = new Map<string, number>();
  const { pushTime, configSize, convergence, totalRejects, expired, perTypeRejects } =
    defineMetrics(registry, pushes, byVersion);

  return {
    connected(istioVersion, delta) {
      byVersion.set(istioVersion, (byVersion.get(istioVersion) ?? 0) + delta);
    },
    pushed(typeUrl, seconds, bytes) {
      const type = metricLabel(typeUrl);
      pushes.add(type);
      if (seconds !== undefined) pushTime.observe(seconds, type);
      configSize.observe(bytes, typeUrl);
    },
    rejected(typeUrl, node, code) {
      totalRejects.inc({ type: metricLabel(typeUrl) });
      perTypeRejects.get(typeUrl)?.inc({ node, err: grpcCodeName(code) });
    },
    expiredNonce(typeUrl) {
      expired.inc({ type: metricLabel(typeUrl) });
    },
    converged(seconds) {
      convergence.observe(seconds);
    },
  };
}
