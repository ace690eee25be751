/**
 * Label values that clients choose (`ISTIO_VERSION`, proxy ids, type URLs, error codes) are
 * bounded twice, so that no client can grow `/metrics` for good: each value is cut to a
 * length (util/cut-text.ts), and each metric has a budget of label sets beyond which a new
 * one is counted as {@link OTHER_LABEL}. A Prometheus series is for ever to its scraper, so
 * the budget is the number of series a metric may ever show.
 */
import { cutText } from '../util/cut-text.js';

/** The label value a series beyond its metric's budget is counted under. */
export const OTHER_LABEL = 'other';
/** The most characters of a label value kept (option `metricLabelMaxLength`). */
export const DEFAULT_METRIC_LABEL_MAX_LENGTH = 256;
/** The most label sets one metric shows (option `metricSeriesMax`, `--metric-series-max`). */
export const DEFAULT_METRIC_SERIES_MAX = 1000;

export interface MetricLimits {
  labelMaxLength: number;
  seriesMax: number;
}

export const DEFAULT_METRIC_LIMITS: MetricLimits = {
  labelMaxLength: DEFAULT_METRIC_LABEL_MAX_LENGTH,
  seriesMax: DEFAULT_METRIC_SERIES_MAX,
};

/** One metric's label sets, each given as its values joined by tabs (`'cds\tack'`). */
export class SeriesBudget {
  private readonly seen = new Set<string>();

  constructor(private readonly limits: MetricLimits) {}

  /** A value cut to the label length; a tab (it joins label sets) becomes a space. */
  cut(value: string): string {
    const cut = cutText(value, this.limits.labelMaxLength);
    return cut.includes('\t') ? cut.replaceAll('\t', ' ') : cut;
  }

  /**
   * `key` when it is counted already or the budget has room (it is then counted); else
   * `other`: every label of the set becomes `other`, so the overflow is one series.
   */
  admit(key: string): string {
    if (this.seen.has(key)) return key;
    if (this.seen.size >= this.limits.seriesMax) return this.other(key);
    this.seen.add(key);
    return key;
  }

  /** A label value, cut and admitted (metrics with one label). */
  label(value: string): string {
    return this.admit(this.cut(value));
  }

  /** Gives a series' place back (a gauge series that went to zero and is removed). */
  release(key: string): void {
    this.seen.delete(key);
  }

  private other(key: string): string {
    return key
      .split('\t')
      .map(() => OTHER_LABEL)
      .join('\t');
  }
}
