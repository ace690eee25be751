/** `GET /control/scenarios`: every fault scenario, with its parameters' JSON Schema. */
import { object, SCENARIO, type ScenarioInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const listScenarios = defineOperation({
  name: 'listScenarios',
  method: 'GET',
  path: '/control/scenarios',
  summary: 'fault scenarios, each with the JSON Schema of its parameters',
  input: {},
  output: answer<{ scenarios: ScenarioInfo[] }>(
    object({ scenarios: { type: 'array', items: SCENARIO } }, ['scenarios']),
  ),
  run: (t) => ({ scenarios: t.scenarios() }),
});
