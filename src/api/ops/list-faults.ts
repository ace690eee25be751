/** `GET /control/faults`: the faults applied, with their state and counts. */
import { FAULTS, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const listFaults = defineOperation({
  name: 'listFaults',
  method: 'GET',
  path: '/control/faults',
  summary: 'the faults applied, with their state and counts',
  input: {},
  output: answer<{ faults: FaultInfo[] }>(object({ faults: FAULTS }, ['faults'])),
  run: (t) => ({ faults: t.faults.list() }),
});
