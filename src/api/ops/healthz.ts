/**
 * `GET /healthz`: the process is alive and serving its control port (Kubernetes' liveness
 * probe). It needs no token, and answers 200 whatever the xDS port or a fault is doing: a
 * fault that closes the xDS port must not get the pod restarted.
 */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const healthz = defineOperation({
  name: 'healthz',
  method: 'GET',
  path: '/healthz',
  summary: 'liveness: the process serves its control port (no token needed)',
  input: {},
  output: answer<{ live: boolean }>(object({ live: bool }, ['live'])),
  public: true,
  run: () => ({ live: true }),
});
