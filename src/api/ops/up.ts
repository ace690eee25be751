/** `POST /control/up`: open the xDS port again on the same address. */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const up = defineOperation({
  name: 'up',
  method: 'POST',
  path: '/control/up',
  summary: 'open the xDS port again on the same address',
  input: {},
  output: answer<{ serving: boolean }>(object({ serving: bool }, ['serving'])),
  cli: {
    summary: 'open the xDS port again (a running mock)',
    help: 'Opens the xDS port again on the same address.',
    text: () => 'xDS port open',
  },
  timeline: true,
  button: { variant: 'success' },
  run: async (t) => {
    await t.up();
    return { serving: t.serving };
  },
});
