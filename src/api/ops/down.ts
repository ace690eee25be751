/** `POST /control/down`: close the xDS port, as when istiod goes away. */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const down = defineOperation({
  name: 'down',
  method: 'POST',
  path: '/control/down',
  summary: 'close the xDS port, as when istiod goes away, until POST /control/up',
  input: {},
  output: answer<{ serving: boolean }>(object({ serving: bool }, ['serving'])),
  cli: {
    summary: 'close the xDS port, as when istiod goes away (a running mock)',
    help: 'Closes the xDS port: open streams end with UNAVAILABLE, new ones are refused.',
    text: () => 'xDS port closed',
  },
  timeline: true,
  button: { variant: 'danger' },
  run: async (t) => {
    await t.down();
    return { serving: t.serving };
  },
});
