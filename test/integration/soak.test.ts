/**
 * The soak of docs/RELIABILITY.md, thirty seconds of it: the full server in its own process
 * (control API, journal file, metrics scraped) under churn, pushes, faults and a slow
 * consumer at once. No error a client sees is anything but what a fault injected, every
 * session goes, the server exits cleanly with a journal that parses, and its heap after a GC
 * grows by less than a loose bound. scripts/reliability.ts runs it for ten minutes.
 */
import { expect, it } from 'vitest';
import { soak } from '../support/harness/soak.js';

/** Heap growth allowed between the first sample after warm-up and the last (after a GC). */
const HEAP_GROWTH_BOUND = 16 * 1024 * 1024;

it(
  'holds thirty seconds of churn, pushes, faults and a slow consumer',
  { timeout: 120_000 },
  async () => {
    // Lighter than the full soak (10 steady streams, 20 churn cycles a second): the suite runs
    // other files beside it on two cores.
    const report = await soak({
      durationMs: 30_000,
      windowMs: 5_000,
      warmupMs: 10_000,
      steadyStreams: 5,
      churnPerSecond: 10,
    });

    expect(report.unexpected).toEqual([]);
    expect(report.serverErrorLines).toEqual([]);
    expect(report.clientsAfter).toBe(0);
    expect(report.exitCode).toBe(0);
    expect(report.journalBadLines).toBe(0);
    expect(report.journalLines).toBeGreaterThan(1_000);
    // The workload really ran: pushes timed, churn, every fault applied and its errors seen.
    expect(report.pushes).toBeGreaterThan(10);
    expect(report.churnCycles).toBeGreaterThan(50);
    expect(report.slowCatchUps).toBeGreaterThanOrEqual(2);
    expect(report.scrapes).toBeGreaterThan(3);
    expect(Object.keys(report.faultsApplied).sort()).toEqual([
      'delay',
      'nack',
      'reset',
      'withhold',
    ]);
    expect(report.injected['stream ended by the reset fault']).toBeGreaterThan(0);
    expect(report.injected['nack seen and NACKed']).toBeGreaterThan(0);
    expect(report.samples.every((s) => s.collected)).toBe(true);
    const afterWarmup = report.samples.find((s) => s.atMs >= 10_000);
    const last = report.samples.at(-1);
    expect(last!.heapUsed - afterWarmup!.heapUsed).toBeLessThan(HEAP_GROWTH_BOUND);
  },
);
