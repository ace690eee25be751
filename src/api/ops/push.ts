/**
 * `POST /control/push`: without a body, a full push as istiod's config change makes (a new
 * version, every watched type sent again; conformance "Pushes"); with `node` or `types`, the
 * current version sent again to those streams only.
 */
import { int, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const push = defineOperation({
  name: 'push',
  method: 'POST',
  path: '/control/push',
  summary:
    'a full push at a new version; with {"node": glob, "types": ["LDS"]} (both optional), the current version again',
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
    summary: 'push every type at a new version, or the current one again (a running mock)',
    help:
      'Without --node or --types, a full push as istiod makes on a config change: a new version, ' +
      'every type each stream watches sent again. With them, the current version of the chosen ' +
      'types is sent again to the chosen streams.',
    text: (a) => `pushed to ${a.streams} stream(s)`,
  },
  timeline: true,
  run: (t, input) => ({ streams: t.push(input) }),
});
