/**
 * `GET /control/faults/:id/wait?until=active&timeout=10s`, and `ControlFault.whenActive` /
 * `whenDone` in process or remote: answers the fault's listing as soon as its trigger has
 * fired (`until=active`: it is active or done) or it is done (`until=done`); at once when
 * it already is. 404 when there is no such fault or it is removed meanwhile; 408 with a
 * problem on `timeout` when it did not get there in time (a client throws `WAIT_TIMEOUT`).
 */
import { FAULT, object, type FaultAwaited } from '../answers.js';
import { answer, defineOperation, waiting } from '../operation.js';

const wait = waiting(
  10_000,
  'the fault did not get there within timeout (the problem on timeout says its state)',
);

export const waitForFault = defineOperation({
  name: 'waitForFault',
  method: 'GET',
  path: '/control/faults/:id/wait',
  summary:
    "wait until a fault's trigger fires, or it is done (?until=active|done&timeout=10s); 408 on timeout",
  invalid: 'invalid wait',
  input: {
    id: { type: 'string', required: true, description: "the fault's id" },
    until: {
      type: 'enum',
      values: ['active', 'done'] as const,
      default: 'active',
      description: 'active: its trigger has fired (it is active or done); done: it has ended',
    },
    timeout: wait.timeout,
  },
  waits: wait.waits,
  output: answer<FaultAwaited>(object({ fault: FAULT }, ['fault'])),
  refusals: wait.refusals,
  cli: {
    verb: ['wait-for-fault'],
    summary: "wait until a running mock's fault is active (or done)",
    help:
      "Waits until the fault's trigger has fired (--until active, the default) or it has ended\n" +
      '(--until done), and prints its state. Exits 0 when it gets there; past --timeout\n' +
      '(default 10s) it says the state it is in and exits 2.',
    text: (a) => `fault ${a.fault.id} is ${a.fault.state}`,
  },
  run: (t, { id, until, timeout }, context) => {
    return t.waitForFault({ id, until, timeoutMs: wait.waitMs(timeout) }, context?.signal);
  },
});
