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
import { SeriesBudget, type MetricLimits } from './label-bounds.js';

/** istiod's buckets, in seconds or bytes. */
export const PUSH_TIME_BUCKETS = [0.01, 0.1, 0.5, 1, 3, 5, 10, 20, 30];
export const CONVERGENCE_BUCKETS = [0.1, 0.5, 1, 3, 5, 10, 20, 30];
export const CONFIG_SIZE_BUCKETS = [1, 10_000, 1_000_000, 4_000_000, 10_000_000, 40_000_000];

export interface IstiodMetrics {
  /** A proxy connected; `istioVersion` is its `ISTIO_VERSION`. */
  opened(connectionId: string, istioVersion: string): void;
  /** A proxy went away (a connection never opened is ignored). */
  closed(connectionId: string): void;
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
    // A version no proxy runs any more is gone from the counts, so from here too.
    collect() {
      this.reset();
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

/** One {@link SeriesBudget} per metric name, made when first needed. */
function budgets(limits: MetricLimits): (metric: string) => SeriesBudget {
  const byMetric = new Map<string, SeriesBudget>();
  return (metric) => {
    let budget = byMetric.get(metric);
    if (!budget) byMetric.set(metric, (budget = new SeriesBudget(limits)));
    return budget;
  };
}

/**
 * The running count of connected proxies per `ISTIO_VERSION` label (cut, and `other` past the
 * budget), with the label each connection was counted under, so that its close takes back
 * exactly what its open added. istiod keeps a version at 0 for ever; here a version no proxy
 * runs is removed and gives its place back, else clients making up versions would fill
 * `/metrics` (and the budget) for good.
 */
function versionCounts(budget: SeriesBudget) {
  const byVersion = new Map<string, number>();
  const byConnection = new Map<string, string>();
  return {
    byVersion,
    opened: (connectionId: string, istioVersion: string) => {
      const label = budget.label(istioVersion);
      byConnection.set(connectionId, label);
      byVersion.set(label, (byVersion.get(label) ?? 0) + 1);
    },
    closed: (connectionId: string) => {
      const label = byConnection.get(connectionId);
      if (label === undefined) return;
      byConnection.delete(connectionId);
      const count = (byVersion.get(label) ?? 1) - 1;
      if (count > 0) byVersion.set(label, count);
      else {
        byVersion.delete(label);
        budget.release(label);
      }
    },
  };
}

export function createIstiodMetrics(registry: Registry, limits: MetricLimits): IstiodMetrics {
  const pushes = new PendingCounts(['type']);
  const budget = budgets(limits);
  const versions = versionCounts(budget('pilot_xds'));
  const { pushTime, configSize, convergence, totalRejects, expired, perTypeRejects } =
    defineMetrics(registry, pushes, versions.byVersion);

  return {
    opened: versions.opened,
    closed: versions.closed,
    pushed(typeUrl, seconds, bytes) {
      const type = budget('pilot_xds_pushes').label(metricLabel(typeUrl));
      pushes.add(type);
      if (seconds !== undefined) pushTime.observe(seconds, type);
      configSize.observe(bytes, budget('pilot_xds_config_size_bytes').label(typeUrl));
    },
    rejected(typeUrl, node, code) {
      totalRejects.inc({ type: budget('pilot_total_xds_rejects').label(metricLabel(typeUrl)) });
      const gauge = perTypeRejects.get(typeUrl);
      if (!gauge) return;
      const perNode = budget(`reject:${typeUrl}`);
      const [n = '', err = ''] = perNode
        .admit(`${perNode.cut(node)}\t${grpcCodeName(code)}`)
        .split('\t');
      gauge.inc({ node: n, err });
    },
    expiredNonce(typeUrl) {
      expired.inc({ type: budget('pilot_xds_expired_nonce').label(metricLabel(typeUrl)) });
    },
    converged(seconds) {
      convergence.observe(seconds);
    },
  };
}
