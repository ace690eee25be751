/**
 * `POST /control/faults`: apply a fault. The fields are checked in depth by the fault engine
 * (the scenario's own parameters, the scope, the trigger), which lists every problem with its
 * path; the OpenAPI document shows one alternative per scenario.
 */
import { FAULT, object, type FaultInfo } from '../answers.js';
import { answer, defineOperation, invalid, Refusal } from '../operation.js';

export const applyFault = defineOperation({
  name: 'applyFault',
  method: 'POST',
  path: '/control/faults',
  summary: 'apply a fault: {"scenario", "params", "scope", "trigger", "id"}',
  invalid: 'invalid fault',
  input: {
    scenario: {
      type: 'json',
      schema: { type: 'string' },
      description: 'the scenario (GET /control/scenarios lists them)',
    },
    id: {
      type: 'json',
      schema: { type: 'string' },
      description: 'a name to refer to it by (default <scenario>-<n>)',
    },
    params: { type: 'json', schema: { type: 'object' }, description: "the scenario's parameters" },
    scope: {
      type: 'json',
      schema: { type: 'object' },
      description: 'which proxies and types: {"node": glob, "types": [LDS]}',
    },
    trigger: {
      type: 'json',
      schema: { type: 'object' },
      description:
        'when it starts acting: {"after": "5s"} | {"afterResponses": n} | {"onRequest": {…}}',
    },
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
