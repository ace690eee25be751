/**
 * The figures a soak reports (soak.ts): latency percentiles per window, the memory slope after
 * warm-up, and whether every line of the journal file parses.
 */
import { readFileSync } from 'node:fs';
import type { MemorySample } from './served-process.js';

export interface WindowFigures {
  window: number;
  pushes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function figures(window: number, ms: readonly number[]): WindowFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { window, pushes: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

/** Least-squares slope of heap and RSS over the samples taken after warm-up, KiB/min. */
export function slopes(samples: readonly MemorySample[], warmupMs: number) {
  const after = samples.filter((s) => s.atMs >= warmupMs);
  const slope = (value: (s: MemorySample) => number) => {
    if (after.length < 2) return 0;
    const xs = after.map((s) => s.atMs / 60_000);
    const ys = after.map((s) => value(s) / 1024);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    let num = 0;
    let den = 0;
    xs.forEach((x, i) => {
      num += (x - mx) * ((ys[i] as number) - my);
      den += (x - mx) ** 2;
    });
    return den === 0 ? 0 : Math.round(num / den);
  };
  return { heapSlopeKiBPerMin: slope((s) => s.heapUsed), rssSlopeKiBPerMin: slope((s) => s.rss) };
}

/** Every line of the journal file parses (the server was stopped cleanly, so none is partial). */
export function journalLines(path: string) {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  let bad = 0;
  for (const line of lines) {
    try {
      JSON.parse(line);
    } catch {
      bad += 1;
    }
  }
  return { journalLines: lines.length, journalBadLines: bad };
}
