/** `POST /control/withhold`: hold every response until released. */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const withhold = defineOperation({
  name: 'withhold',
  method: 'POST',
  path: '/control/withhold',
  summary: 'hold every response until released',
  input: {},
  output: answer<{ withheld: boolean }>(object({ withheld: bool }, ['withheld'])),
  cli: {
    summary: 'hold every response until release (a running mock)',
    help: 'Holds every response until `mock-istiod release`.',
    text: () => 'withholding every response',
  },
  timeline: true,
  button: {},
  run: (t) => {
    t.withhold();
    return { withheld: t.withheld };
  },
});
