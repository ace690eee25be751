/** `GET /control/resources`: the resource sets served, in canonical JSON. */
import { object, type SetInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const getResources = defineOperation({
  name: 'getResources',
  method: 'GET',
  path: '/control/resources',
  summary: 'the resource sets served, in canonical JSON',
  input: {},
  output: answer<{ sets: SetInfo[] }>(object({ sets: { type: 'array' } }, ['sets'])),
  cli: {
    verb: ['resources', 'get'],
    summary: 'print the resource sets a running mock serves',
    help: 'Prints the resource sets served (canonical JSON, each with its versions).',
    text: (a) => JSON.stringify(a.sets, null, 2),
  },
  run: (t) => ({ sets: t.resourceSets() }),
});
