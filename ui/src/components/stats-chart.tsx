/**
 * Envoy's control-plane stats over time, drawn by uPlot: `control_plane.connected_state` (0
 * or 1, left axis) and the update_success / update_rejected counters (right axis), one line
 * per proxy and stat. The chart's data is also published on `window.mockIstiodPage.chart` (and
 * the last connected_state on a data attribute) so that tests can read what is drawn.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartData } from '../model/chart.js';
import { useT } from '../i18n.js';

/** The chart shows at least this many seconds. */
const WINDOW_S = 30;

const PALETTE = ['#1f6feb', '#b35900', '#1a7f37', '#8250df', '#cf222e', '#0969da', '#6e7781'];

declare global {
  interface Window {
    /** What the page shows, for tests and the curious (read-only copies). */
    mockIstiodPage?: { chart?: { labels: string[]; data: (number | null)[][] } };
  }
}

function makeOptions(data: ChartData, width: number, timeLabel: string): uPlot.Options {
  return {
    width,
    height: 260,
    scales: {
      // Set by showData(): at least the last half minute, so the first points do not fill it.
      x: { time: true, auto: false },
      state: { range: [0, 1.1] },
      count: { range: (_u, _min, max) => [0, Math.max(5, max)] },
    },
    axes: [
      { label: timeLabel },
      { scale: 'state', label: 'connected_state', values: (_u, ticks) => ticks.map(String) },
      { scale: 'count', side: 1, label: 'updates', grid: { show: false } },
    ],
    series: [
      {},
      ...data.series.map((s, i) => ({
        label: s.label,
        scale: s.stat === 'connected_state' ? 'state' : 'count',
        stroke: PALETTE[i % PALETTE.length],
        width: s.stat === 'connected_state' ? 3 : 1.5,
        dash: s.stat === 'update_rejected' ? [6, 4] : undefined,
        spanGaps: false,
      })),
    ],
  };
}

export function StatsChart({ data }: { data: ChartData }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const shape = data.series.map((s) => s.label).join('\n');

  // A new set of lines (a proxy came or went) builds a new chart; new points only update it.
  useEffect(() => {
    const element = box.current;
    if (!element || data.series.length === 0) return undefined;
    const width = Math.max(320, element.clientWidth);
    const chart = new uPlot(makeOptions(data, width, t('chart.time')), [[]], element);
    showData(chart, data);
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      chart.setSize({ width: Math.max(320, element.clientWidth), height: 260 });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
    // Only the set of lines decides when to rebuild; points arrive through setData below.
  }, [shape, t]);

  useEffect(() => {
    if (plot.current) showData(plot.current, data);
    window.mockIstiodPage = {
      ...window.mockIstiodPage,
      chart: {
        labels: data.series.map((s) => s.label),
        data: data.series.map((s) => [...s.values]),
      },
    };
  }, [data]);

  if (data.series.length === 0) return <p data-testid="chart-empty">{t('chart.none')}</p>;
  const connected = data.series.filter((s) => s.stat === 'connected_state');
  const last = connected.map((s) => s.values[s.values.length - 1] ?? null).join(',');
  return (
    <div
      ref={box}
      class="chart"
      data-testid="stats-chart"
      data-connected-state={last}
      role="img"
      aria-label={t('chart.title')}
    />
  );
}

/** Draws `data`, with the time axis over at least the last {@link WINDOW_S} seconds. */
function showData(chart: uPlot, data: ChartData): void {
  chart.setData([data.times, ...data.series.map((s) => s.values)] as uPlot.AlignedData);
  const max = data.times[data.times.length - 1] ?? Date.now() / 1000;
  const min = Math.min(data.times[0] ?? max, max - WINDOW_S);
  chart.setScale('x', { min, max });
}
