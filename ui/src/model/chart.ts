/**
 * The chart's data: one time axis (seconds since the epoch, as uPlot wants) and one line per
 * proxy and stat, aligned on it, with a bounded history.
 */
export type ChartStat = 'connected_state' | 'update_success' | 'update_rejected';

export interface ChartSeries {
  label: string;
  node: string;
  stat: ChartStat;
  values: (number | null)[];
}

export interface ChartData {
  times: number[];
  series: ChartSeries[];
}

/** One admin poll of one proxy: the stats read at `time` (ms since the epoch). */
export interface StatSample {
  time: number;
  node: string;
  /** Short label of the proxy (pod name). */
  name: string;
  stats: Partial<Record<ChartStat, number>>;
}

/** Points kept per line (at one sample a second, five minutes). */
export const CHART_POINTS = 300;

const STATS: readonly ChartStat[] = ['connected_state', 'update_success', 'update_rejected'];

/** The chart with `sample` added as a new point in time (other lines get a gap there). */
export function addSample(chart: ChartData, sample: StatSample): ChartData {
  const series = [...chart.series];
  for (const stat of STATS) {
    if (sample.stats[stat] === undefined) continue;
    if (!series.some((s) => s.node === sample.node && s.stat === stat)) {
      series.push({
        label: `${sample.name} ${stat}`,
        node: sample.node,
        stat,
        values: chart.times.map(() => null),
      });
    }
  }
  const times = [...chart.times, sample.time / 1000];
  const next = series.map((s) => ({
    ...s,
    values: [...s.values, s.node === sample.node ? (sample.stats[s.stat] ?? null) : null],
  }));
  const drop = Math.max(0, times.length - CHART_POINTS);
  return {
    times: times.slice(drop),
    series: next.map((s) => ({ ...s, values: s.values.slice(drop) })),
  };
}
