/** `GET /control/scenarios/:name`: one fault scenario. */
import { SCENARIO, type ScenarioInfo } from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

export const getScenario = defineOperation({
  name: 'getScenario',
  method: 'GET',
  path: '/control/scenarios/:name',
  summary: 'one fault scenario',
  invalid: 'invalid scenario name',
  input: { name: { type: 'string', required: true, description: "the scenario's name" } },
  output: answer<ScenarioInfo>(SCENARIO),
  run: (t, { name }) => {
    const scenarios = t.scenarios();
    const found = scenarios.find((s) => s.name === name);
    if (found) return found;
    const names = scenarios.map((s) => s.name);
    return new Refusal(
      404,
      `unknown scenario ${JSON.stringify(name)}; valid scenarios: ${names.join(', ')}`,
      [],
      { scenarios: names },
    );
  },
});
