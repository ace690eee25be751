import { describe, expect, it } from 'vitest';
import { parseTimeline } from '../../src/timelines/timeline.js';
import { LISTENER_TYPE } from '../../src/xds/type-urls.js';

describe('parseTimeline', () => {
  it('reads steps in time order (file order for equal times)', () => {
    const result = parseTimeline(`
name: demo
start: first-stream
steps:
  - at: 10s
    release: true
  - at: 0s
    fault: withhold
    id: hold
    scope: { types: [LDS] }
    note: wait
  - at: 0s
    push: { types: [LDS] }
  - at: 12s
    remove: hold
  - at: 15s
    disconnect: { code: UNAVAILABLE, message: bye }
  - at: 20s
    reset: true
`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.name).toBe('demo');
    expect(result.value.start).toBe('first-stream');
    const kinds = result.value.steps.map((s) => [
      s.at,
      s.action.kind === 'operation' ? s.action.name : s.action.kind,
    ]);
    expect(kinds).toEqual([
      [0, 'fault'],
      [0, 'push'],
      [10_000, 'release'],
      [12_000, 'remove'],
      [15_000, 'disconnect'],
      [20_000, 'reset'],
    ]);
    expect(result.value.steps[0]).toMatchObject({
      note: 'wait',
      action: { kind: 'fault', fault: { id: 'hold', scope: { types: [LISTENER_TYPE] } } },
    });
    // The step's fault is resolved once, when the timeline is read.
    const first = result.value.steps[0]?.action;
    expect(first?.kind === 'fault' && first.fault.scenario.name).toBe('withhold');
    expect(result.value.steps[1]?.action).toEqual({
      kind: 'operation',
      name: 'push',
      input: { types: [LISTENER_TYPE] },
    });
    expect(result.value.steps[4]?.action).toEqual({
      kind: 'operation',
      name: 'disconnect',
      input: { code: 14, message: 'bye' },
    });
  });

  it('reports every problem with its path', () => {
    const result = parseTimeline(`
start: whenever
colour: red
steps:
  - at: soon
    fault: delay
    params: { ms: x }
  - at: 1s
    fault: explode
  - at: 2s
    release: true
    reset: true
  - at: 3s
    remove: nobody
  - at: 4s
    push: { types: [XDS] }
  - at: 5s
    release: true
    colour: blue
`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.path)).toEqual([
      'colour',
      'start',
      'steps[0].at',
      'steps[0].params.ms',
      'steps[1].fault',
      'steps[2]',
      'steps[3].remove',
      'steps[4].push.types[0]',
      'steps[5].colour',
    ]);
  });

  it('reports YAML syntax errors and a missing step list', () => {
    expect(parseTimeline('steps: [')).toMatchObject({
      ok: false,
      problems: [{ path: '', message: expect.stringContaining('not valid YAML') as unknown }],
    });
    expect(parseTimeline('name: x')).toEqual({
      ok: false,
      problems: [{ path: 'steps', message: 'expected a list of steps' }],
    });
  });
});
