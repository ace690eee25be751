/** `POST /control/release`: let held responses go (withhold, partial, --withhold-first). */
import { bool, object } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const release = defineOperation({
  name: 'release',
  method: 'POST',
  path: '/control/release',
  summary: 'let withheld responses go',
  input: {},
  output: answer<{ released: boolean; withheld: boolean }>(
    object({ released: bool, withheld: bool }, ['released', 'withheld']),
  ),
  cli: {
    summary: 'let withheld responses go (a running mock)',
    help: 'Lets held responses go: ends withhold and partial faults and --withhold-first.',
    text: (a) => (a.released ? 'released' : 'nothing was withheld'),
  },
  timeline: true,
  button: { variant: 'brand' },
  run: (t) => ({ released: t.release(), withheld: t.withheld }),
});
