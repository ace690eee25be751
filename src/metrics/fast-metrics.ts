/**
 * Cheap metrics for the push path. prom-client hashes the labels and makes a closure on every
 * `inc()` and `observe()` (about a microsecond each), and a push to N streams makes 4N of
 * them. Here a count is one addition to a map entry, and an observation a bucket increment,
 * both folded into what the registry shows when it is read (a scrape, a test reading a
 * metric), so no reader can tell the difference.
 */
import type { Counter, Registry } from 'prom-client';

/**
 * Counts per label set, added to a prom-client counter when the registry is read: the
 * counter's `collect` hook calls `flush(this)`. A label set is given as its values in
 * `labelNames`' order, joined by tabs (`'cds\tack'`): one string, no object per count. No
 * label value here may contain a tab.
 */
export class PendingCounts {
  private readonly byLabels = new Map<string, number>();

  constructor(private readonly labelNames: readonly string[]) {}

  add(values: string, by = 1): void {
    this.byLabels.set(values, (this.byLabels.get(values) ?? 0) + by);
  }

  /** Adds what is pending to `counter`. */
  flush(counter: Counter<string>): void {
    if (this.byLabels.size === 0) return;
    for (const [values, count] of this.byLabels) {
      const split = values.split('\t');
      const labels = Object.fromEntries(this.labelNames.map((name, i) => [name, split[i] ?? '']));
      counter.inc(labels, count);
    }
    this.byLabels.clear();
  }
}

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
  /** prom-client's bucket samples carry `exemplar: null` (exemplars are off). */
  exemplar?: null;
}

/**
 * A histogram with at most one label, registered in a prom-client registry as one of its
 * own: the registry reads it as it reads prom-client's histograms (`getForPromString()`,
 * `get()`), so the exposition is the same line for line (test/unit/fast-metrics.test.ts
 * holds it to prom-client's). Observing is a lookup and an increment.
 */
export class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
    private readonly labelName?: string,
  ) {
    registry.registerMetric(this as never);
    // As prom-client does, a histogram without labels shows its zeros from the start.
    if (!labelName) this.seriesOf('');
  }

  observe(value: number, label = ''): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.seriesOf(label);
    let bucket = 0;
    while (bucket < this.buckets.length && value > (this.buckets[bucket] as number)) bucket += 1;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += value;
    series.count += 1;
  }

  private seriesOf(label: string): Series {
    let series = this.series.get(label);
    if (!series) {
      const labels: Record<string, string> = this.labelName ? { [this.labelName]: label } : {};
      series = {
        labels,
        counts: new Array<number>(this.buckets.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      this.series.set(label, series);
    }
    return series;
  }

  reset(): void {
    this.series.clear();
  }

  /** What prom-client's registry formats: bucket, `+Inf`, sum and count samples per series. */
  getForPromString(): {
    name: string;
    help: string;
    type: string;
    values: Sample[];
    aggregator: string;
  } {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number;
        values.push({
          labels: { le },
          sharedLabels: labels,
          value: cumulative,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        });
      });
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: labels,
        value: count,
        metricName: `${this.name}_bucket`,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
      values.push({
        labels: {},
        sharedLabels: labels,
        value: count,
        metricName: `${this.name}_count`,
      });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** The same samples with each series' labels spread into its own (prom-client's `get()`). */
  get(): ReturnType<FastHistogram['getForPromString']> {
    const data = this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...sample }) => ({
      ...sample,
      labels: { ...sample.labels, ...sharedLabels },
    }));
    return data;
  }
}
