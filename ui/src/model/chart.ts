/**
 * The chart's data, built from the admin stat samples: one time axis (seconds since the epoch,
 * as uPlot wants) and, per Envoy admin, a line for `control_plane.connected_state` and one
 * each for update_success / update_rejected summed over the types Envoy reports (CDS, LDS, …).
 */
import type { UiStatSample } from '../../../src/live/ui-events.js';

export type ChartStat = 'connected_state' | 'update_success' | 'update_rejected';

export interface ChartSeries {
  label: string;
  admin: string;
  stat: ChartStat;
  values: (number | null)[];
}

export interface ChartData {
  times: number[];
  series: ChartSeries[];
}

const STATS: readonly ChartStat[] = ['connected_state', 'update_success', 'update_rejected'];

/** The value of `stat` in one sample, or undefined when Envoy did not report it. */
export function statValue(sample: UiStatSample, stat: ChartStat): number | undefined {
  if (stat === 'connected_state') return sample.values['control_plane.connected_state'];
  let sum: number | undefined;
  for (const [name, value] of Object.entries(sample.values)) {
    if (name.endsWith(`.${stat}`)) sum = (sum ?? 0) + value;
  }
  return sum;
}

/**
 * The chart for `samples` (oldest first). `nameOf` labels an admin (its pod's name when
 * known). Lines are aligned on the union of the sample times; a line has no point (null) at
 * another admin's times.
 */
export function buildChart(
  samples: readonly UiStatSample[],
  nameOf: (sample: UiStatSample) => string,
): ChartData {
  const admins = [...new Set(samples.map((s) => s.admin))];
  const series: ChartSeries[] = [];
  const labels = new Map(samples.map((s) => [s.admin, nameOf(s)]));
  for (const admin of admins) {
    for (const stat of STATS) {
      if (!samples.some((s) => s.admin === admin && statValue(s, stat) !== undefined)) continue;
      series.push({ label: `${labels.get(admin) ?? admin} ${stat}`, admin, stat, values: [] });
    }
  }
  const times: number[] = [];
  for (const sample of samples) {
    times.push(sample.at / 1000);
    for (const line of series) {
      line.values.push(line.admin === sample.admin ? (statValue(sample, line.stat) ?? null) : null);
    }
  }
  return { times, series };
}
