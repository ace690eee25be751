/**
 * Every fault scenario, by name. A scenario is one file under scenarios/ and one line here.
 */
import type { ScenarioDefinition } from './model.js';
import { fieldsJsonSchema } from '../core/fields.js';
import { delay } from './scenarios/delay.js';
import { down } from './scenarios/down.js';
import { flap } from './scenarios/flap.js';
import { nack } from './scenarios/nack.js';
import { partial } from './scenarios/partial.js';
import { reset } from './scenarios/reset.js';
import { stale } from './scenarios/stale.js';
import { withhold } from './scenarios/withhold.js';

const SCENARIOS: readonly ScenarioDefinition[] = [
  withhold,
  partial,
  delay,
  nack,
  reset,
  down,
  flap,
  stale,
];

export function scenarioNames(): string[] {
  return SCENARIOS.map((s) => s.name);
}

export function findScenario(name: unknown): ScenarioDefinition | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** A scenario as the API lists it: name, summary, what it may be scoped to, its parameters' JSON Schema. */
export function describeScenario(scenario: ScenarioDefinition): Record<string, unknown> {
  return {
    name: scenario.name,
    summary: scenario.summary,
    scope: { 'node-and-type': ['node', 'types'], node: ['node'], none: [] }[scenario.scope],
    releasable: scenario.holds,
    params: fieldsJsonSchema(scenario.params),
    ...scenario.describe?.(),
  };
}

export function describeScenarios(): Record<string, unknown>[] {
  return SCENARIOS.map(describeScenario);
}
