/** `POST /control/push`: send the current version again. */
import { int, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const push = defineOperation({
  name: 'push',
  method: 'POST',
  path: '/control/push',
  summary: 'send the current version again: {"node": glob, "types": ["LDS"]}, both optional',
  invalid: 'invalid push',
  input: {
    node: {
      type: 'glob',
      description: 'only the streams whose node id matches, e.g. "sidecar~*~orders-*"',
    },
    types: { type: 'types', description: 'only these types, e.g. LDS,CDS (default: every type)' },
  },
  output: answer<{ streams: number }>(object({ streams: int }, ['streams'])),
  cli: {
    summary: 'send the current version again (a running mock)',
    help: 'Sends the current version of the chosen types again to the chosen streams.',
    text: (a) => `pushed to ${a.streams} stream(s)`,
  },
  timeline: true,
  run: (t, input) => ({ streams: t.push(input) }),
});
