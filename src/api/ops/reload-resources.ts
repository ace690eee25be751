/** `POST /control/resources/reload`: load the resource files again now. */
import { SETS_CHANGED, type SetsChanged } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const reloadResources = defineOperation({
  name: 'reloadResources',
  method: 'POST',
  path: '/control/resources/reload',
  summary: 'load the resource files again now (with --resources); errors keep the last good sets',
  input: {},
  output: answer<SetsChanged>(SETS_CHANGED),
  run: (t) => t.reloadResources(),
});
