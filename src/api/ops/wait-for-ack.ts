/**
 * `GET /control/wait-for-ack?type=LDS&node=…&version=…&timeout=10s`, and `control.waitForAck`
 * in process or remote: answers as soon as a stream (of a node matching the glob, when given)
 * ACKs the type at the version (default: the version its set serves now), or NACKs it: then
 * `result: "nack"` with Envoy's error detail. At once when that already happened; 408 with a
 * problem on `timeout` when nothing did in time (a client throws `WAIT_TIMEOUT`). The test
 * helper `istiod.waitForAck` runs the same wait, asking for an ACK only.
 */
import { ACK_AWAITED, type AckAwaited } from '../answers.js';
import { answer, defineOperation, waiting } from '../operation.js';

const wait = waiting(
  10_000,
  'nothing matched within timeout (the problem on timeout says what each stream ACKed)',
);

export const waitForAck = defineOperation({
  name: 'waitForAck',
  method: 'GET',
  path: '/control/wait-for-ack',
  summary:
    'wait until a stream ACKs or NACKs a type (?type=LDS&node=&version=&timeout=10s); 408 on timeout',
  invalid: 'invalid wait',
  input: {
    type: {
      type: 'type',
      required: true,
      description: 'the resource type: LDS, cds, or a type URL',
    },
    node: {
      type: 'glob',
      description: 'only streams whose node id matches, e.g. "sidecar~*~orders-*"',
    },
    version: {
      type: 'string',
      minLength: 1,
      description: "only this version (default: the version the stream's set serves now)",
    },
    timeout: wait.timeout,
  },
  waits: wait.waits,
  output: answer<AckAwaited>(ACK_AWAITED),
  refusals: wait.refusals,
  cli: {
    verb: ['wait-for-ack'],
    summary: 'wait until a running mock sees a type ACKed (or NACKed)',
    help:
      'Waits until a stream ACKs --type at --version (default: the version served now), from\n' +
      "--node when given. Exits 0 on an ACK; on a NACK prints Envoy's error and exits 1; past\n" +
      '--timeout (default 10s) it says what it saw and exits 2.',
    text: (a) =>
      a.result === 'ack'
        ? `${a.nodeId} ACKed ${a.typeUrl.split('.').pop() ?? a.typeUrl} version ${a.version}`
        : `${a.nodeId} NACKed ${a.typeUrl.split('.').pop() ?? a.typeUrl} version ${a.version}: ${a.nack?.message ?? ''}`,
    fails: (a) => a.result === 'nack',
  },
  run: (t, { type, node, version, timeout }, context) => {
    const query = {
      typeUrl: type,
      ...(node !== undefined ? { node } : {}),
      ...(version !== undefined ? { version } : {}),
      timeoutMs: wait.waitMs(timeout),
    };
    return t.waitForAck(query, context?.signal);
  },
});
