/**
 * `POST /control/faults`: apply a fault. The fields are checked in depth by the fault engine
 * (the scenario's own parameters, the scope, the trigger), which lists every problem with its
 * path; the OpenAPI document shows one alternative per scenario.
 */
import { jsonField } from '../../core/fields.js';
import { FAULT, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation, invalid, Refusal } from '../operation.js';

export const applyFault = defineOperation({
  name: 'applyFault',
  method: 'POST',
  path: '/control/faults',
  summary: 'apply a fault: {"scenario", "params", "scope", "trigger", "id"}',
  invalid: 'invalid fault',
  input: {
    scenario: jsonField('string', 'the scenario (GET /control/scenarios lists them)'),
    id: jsonField('string', 'a name to refer to it by (default <scenario>-<n>)'),
    params: jsonField('object', "the scenario's parameters"),
    scope: jsonField('object', 'which proxies and types: {"node": glob, "types": [LDS]}'),
    trigger: jsonField(
      'object',
      'when it starts acting: {"after": "5s"} | {"afterResponses": n} | {"onRequest": {…}}',
    ),
  },
  output: answer<{ fault: FaultInfo }>(object({ fault: FAULT }, ['fault'])),
  success: 201,
  keepUnknown: true,
  run: async (t, input) => {
    const applied = await t.faults.apply(input);
    if (applied.ok) return { fault: applied.value };
    const unknown =
      input.scenario !== undefined &&
      applied.problems.find((p) => p.path === 'scenario' && p.message.startsWith('unknown'));
    if (unknown) {
      const scenarios = t.scenarios().map((s) => s.name);
      return new Refusal(404, unknown.message, applied.problems, { scenarios });
    }
    return invalid('invalid fault', applied.problems);
  },
});
