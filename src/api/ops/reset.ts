/** `POST /control/reset`: per-test cleanup. */
import { bool, int, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const reset = defineOperation({
  name: 'reset',
  method: 'POST',
  path: '/control/reset',
  summary: 'per-test cleanup: no faults, nothing held, port up, start-up resources, empty journal',
  input: {},
  output: answer<{ removedFaults: number; withheld: boolean; serving: boolean }>(
    object({ removedFaults: int, withheld: bool, serving: bool }, [
      'removedFaults',
      'withheld',
      'serving',
    ]),
  ),
  cli: {
    summary: 'per-test cleanup of a running mock',
    help: 'No faults, nothing held, the port up, the start-up resources, an empty journal.',
    text: (a) => `reset: removed ${a.removedFaults} fault(s)`,
  },
  timeline: true,
  run: async (t) => {
    const removedFaults = t.faults.list().length;
    await t.reset();
    return { removedFaults, withheld: t.withheld, serving: t.serving };
  },
});
