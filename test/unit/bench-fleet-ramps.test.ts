/**
 * The connect ramp's figures over several ramps (bench/scenarios/fleet.ts): each figure's
 * median, and of the counts that judge a ramp sound, the worst; the same for the fan-out pushes
 * of several fleets.
 */
import { describe, expect, it } from 'vitest';
import { medianPush, medianRamp, type FleetRun } from '../../bench/scenarios/fleet.js';

type Ramp = FleetRun['ramp'];

function ramp(allAckedMs: number | null, serverCpu: number, firstResponseP50: number): Ramp {
  return {
    firstResponseP50,
    firstResponseP99: firstResponseP50 * 2,
    allAckedMs,
    acked: 1_000,
    failed: 0,
    errors: 0,
    errorSamples: [],
    serverCpu,
    loadgenCpu: 0.3,
    wallMs: (allAckedMs ?? 0) + 10,
    rounds: 1,
  };
}

describe('medianRamp', () => {
  it('takes each figure’s median, whichever ramp it comes from', () => {
    const m = medianRamp([ramp(700, 0.6, 300), ramp(600, 0.7, 250), ramp(650, 0.5, 310)]);
    expect(m.allAckedMs).toBe(650);
    expect(m.serverCpu).toBe(0.6);
    expect(m.firstResponseP50).toBe(300);
    expect(m.firstResponseP99).toBe(600);
    expect(m.rounds).toBe(3);
  });

  it('keeps the worst counts, and a ramp that never finished makes the figure unknown', () => {
    const bad = { ...ramp(null, 0.9, 400), acked: 998, failed: 2, errors: 3, errorSamples: ['x'] };
    const m = medianRamp([ramp(600, 0.6, 300), bad, ramp(610, 0.6, 300)]);
    expect(m.acked).toBe(998);
    expect(m.failed).toBe(2);
    expect(m.errors).toBe(3);
    expect(m.errorSamples).toEqual(['x']);
    expect(m.allAckedMs).toBeNull();
  });
});

type Push = NonNullable<FleetRun['push']>;

function push(allAckedMs: number, serverCpuPerPush: number, extra: Partial<Push> = {}): Push {
  return {
    pushes: 10,
    incomplete: 0,
    streams: 1_000,
    p50: allAckedMs / 2,
    p99: allAckedMs * 0.9,
    max: allAckedMs * 1.5,
    allAckedMs,
    firstPushAllAckedMs: allAckedMs * 2,
    acceptMs: 5,
    serverCpuPerPush,
    loadgenCpuPerPush: 0.05,
    responsesPerPush: 2_000,
    serverCpuPerResponseUs: (serverCpuPerPush * 1e6) / 2_000,
    p99s: [allAckedMs * 0.9],
    errors: 0,
    errorSamples: [],
    eventLoopP99: 40,
    eventLoopMax: 90,
    fleets: 1,
    ...extra,
  };
}

describe('medianPush', () => {
  it('takes each figure’s median over the fleets, whichever fleet it comes from', () => {
    const m = medianPush([push(60, 0.09), push(40, 0.12), push(50, 0.1)]);
    expect(m.allAckedMs).toBe(50);
    expect(m.serverCpuPerPush).toBe(0.1);
    expect(m.p50).toBe(25);
    expect(m.serverCpuPerResponseUs).toBe(50);
    expect(m.fleets).toBe(3);
    expect(m.pushes).toBe(30);
  });

  it('keeps the slowest ACK of all, every p99, and the worst counts', () => {
    const bad = push(50, 0.1, { incomplete: 2, errors: 4, errorSamples: ['y'], eventLoopMax: 300 });
    const m = medianPush([push(60, 0.09), bad, push(40, 0.12)]);
    expect(m.max).toBe(90);
    expect(m.p99s).toEqual([54, 45, 36]);
    expect(m.incomplete).toBe(2);
    expect(m.errors).toBe(4);
    expect(m.errorSamples).toEqual(['y']);
    expect(m.eventLoopMax).toBe(300);
  });

  it('leaves the event loop unknown where no fleet has one (the Go peer)', () => {
    const m = medianPush([push(60, 0.09, { eventLoopP99: null, eventLoopMax: null })]);
    expect(m.eventLoopP99).toBeNull();
    expect(m.eventLoopMax).toBeNull();
  });
});
