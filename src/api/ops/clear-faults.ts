/** `DELETE /control/faults`: remove every fault. */
import { FAULTS, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const clearFaults = defineOperation({
  name: 'clearFaults',
  method: 'DELETE',
  path: '/control/faults',
  summary: 'remove every fault',
  input: {},
  output: answer<{ removed: FaultInfo[] }>(object({ removed: FAULTS }, ['removed'])),
  run: async (t) => ({ removed: await t.faults.clear() }),
});
