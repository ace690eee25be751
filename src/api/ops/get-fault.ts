/** `GET /control/faults/:id`: one fault. */
import { FAULT, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

export const getFault = defineOperation({
  name: 'getFault',
  method: 'GET',
  path: '/control/faults/:id',
  summary: 'one fault',
  invalid: 'invalid fault id',
  input: { id: { type: 'string', required: true, description: "the fault's id" } },
  output: answer<{ fault: FaultInfo }>(object({ fault: FAULT }, ['fault'])),
  run: (t, { id }) => {
    const fault = t.faults.get(id);
    return fault ? { fault } : new Refusal(404, `no fault with id "${id}"`);
  },
});
