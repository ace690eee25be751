import { describe, expect, it } from 'vitest';
import { parseFaultFlags } from '../../src/cli/serve/fault-flags.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';

describe('--fault flags', () => {
  it('come back resolved, so that the engine applies them without parsing them again', () => {
    const flags = parseFaultFlags(['delay:ms=2s,types=LDS', 'withhold:id=hold'], undefined);
    expect(flags.faults.map((f) => f.text)).toEqual(['delay:ms=2s,types=LDS', 'withhold:id=hold']);
    expect(flags.faults[0]?.fault).toMatchObject({
      id: undefined,
      params: { ms: 2_000, jitter: 0, seed: 1 },
      scope: { types: [LISTENER_TYPE] },
    });
    expect(flags.faults[0]?.fault.scenario.name).toBe('delay');
    expect(flags.faults[1]?.fault.id).toBe('hold');
  });

  it('refuse a bad one with one line naming the flag and the field', () => {
    expect(() => parseFaultFlags(['delay:ms=soon'], undefined)).toThrow(
      expect.objectContaining({ code: 'USAGE' }),
    );
    expect(() => parseFaultFlags(['delay:ms=soon'], undefined)).toThrow(
      /^--fault "delay:ms=soon": params\.ms: expected a duration/,
    );
  });
});
