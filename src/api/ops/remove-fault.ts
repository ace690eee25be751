/** `DELETE /control/faults/:id`: remove a fault and undo its effect. */
import { FAULT, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

export const removeFault = defineOperation({
  name: 'removeFault',
  method: 'DELETE',
  path: '/control/faults/:id',
  summary: 'remove a fault and undo its effect',
  invalid: 'invalid fault id',
  input: { id: { type: 'string', required: true, description: "the fault's id" } },
  output: answer<{ removed: FaultInfo }>(object({ removed: FAULT }, ['removed'])),
  run: async (t, { id }) => {
    const removed = await t.faults.remove(id);
    return removed ? { removed } : new Refusal(404, `no fault with id "${id}"`);
  },
});
