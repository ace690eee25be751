/**
 * `GET /ready`: the mock's own readiness (a client checks a mock answers there; Kubernetes'
 * readiness probe asks it). It needs no token: it tells nothing and changes nothing.
 */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const ready = defineOperation({
  name: 'ready',
  method: 'GET',
  path: '/ready',
  summary: 'readiness of the mock itself (no token needed)',
  input: {},
  output: answer<{ ready: boolean }>(object({ ready: bool }, ['ready'])),
  public: true,
  run: () => ({ ready: true }),
});
