/** The figures a soak reports: the memory slope after warm-up and latency percentiles. */
import { expect, it } from 'vitest';
import { figures, slopes } from '../support/harness/soak-figures.js';

const sample = (minute: number, heapKiB: number, rssKiB: number) => ({
  atMs: minute * 60_000,
  heapUsed: heapKiB * 1024,
  rss: rssKiB * 1024,
  collected: true,
});

it('fits the memory slope over the samples after warm-up only, in KiB per minute', () => {
  const samples = [
    sample(0, 1_000, 50_000), // warm-up: left out
    sample(1, 30_000, 90_000),
    sample(2, 30_100, 90_000),
    sample(3, 30_200, 90_000),
    sample(4, 30_300, 90_000),
  ];
  expect(slopes(samples, 60_000)).toEqual({ heapSlopeKiBPerMin: 100, rssSlopeKiBPerMin: 0 });
  expect(slopes(samples.slice(0, 2), 60_000)).toEqual({
    heapSlopeKiBPerMin: 0,
    rssSlopeKiBPerMin: 0,
  });
});

it('takes percentiles of the latencies of a window', () => {
  const ms = Array.from({ length: 100 }, (_, i) => 100 - i);
  expect(figures(3, ms)).toEqual({ window: 3, pushes: 100, p50Ms: 51, p99Ms: 100, maxMs: 100 });
  expect(figures(0, [])).toEqual({ window: 0, pushes: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 });
});
