/** `GET /ready`: the mock's own readiness (a client checks a mock answers there). */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const ready = defineOperation({
  name: 'ready',
  method: 'GET',
  path: '/ready',
  summary: 'readiness of the mock itself',
  input: {},
  output: answer<{ ready: boolean }>(object({ ready: bool }, ['ready'])),
  run: () => ({ ready: true }),
});
