/**
 * The connect ramp's figures over several ramps (bench/scenarios/fleet.ts): each figure's
 * median, and of the counts that judge a ramp sound, the worst.
 */
import { describe, expect, it } from 'vitest';
import { medianRamp, type FleetRun } from '../../bench/scenarios/fleet.js';

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
