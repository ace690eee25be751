/**
 * JSON Schemas of the control API's bodies and answers, shared by the route files (each
 * route names its own) and by the OpenAPI document built from them (openapi.ts). The fault
 * parameters come from the scenarios' own parameter schemas, so nothing here repeats them.
 */
import { describeScenarios } from '../faults/registry.js';

export type Schema = Record<string, unknown>;

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const int = { type: 'integer', minimum: 0 } as const;

function object(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

const problem = object({ path: str, message: str }, ['path', 'message']);

/** Every 4xx answer: one line, and (for bad input) every problem with its field path. */
export const ERROR: Schema = {
  type: 'object',
  properties: { error: str, problems: { type: 'array', items: problem } },
  required: ['error'],
};

const typeNames = { type: 'array', items: str, minItems: 1 };
const scope = object({ node: str, types: { oneOf: [typeNames, str] } });
const trigger = object({
  after: { oneOf: [int, str] },
  afterResponses: int,
  onRequest: object({ node: str, type: str }),
});

export const FAULT: Schema = object(
  {
    id: str,
    scenario: str,
    params: { type: 'object' },
    scope,
    trigger,
    state: { type: 'string', enum: ['armed', 'active', 'done'] },
    appliedAt: str,
    activatedAt: str,
    doneAt: str,
    reason: str,
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
  },
  ['id', 'scenario', 'params', 'scope', 'state', 'appliedAt', 'counts'],
);

/** The body of `POST /control/faults`: one alternative per scenario, with its parameters. */
export function faultRequest(): Schema {
  return {
    oneOf: describeScenarios().map((s) =>
      object({ scenario: { const: s.name }, params: s.params as Schema, scope, trigger, id: str }, [
        'scenario',
      ]),
    ),
  };
}

export const FAULT_ANSWER = object({ fault: FAULT }, ['fault']);
export const FAULTS_ANSWER = object({ faults: { type: 'array', items: FAULT } }, ['faults']);
export const REMOVED_ANSWER = object(
  { removed: { oneOf: [FAULT, { type: 'array', items: FAULT }] } },
  ['removed'],
);
export const RELEASE_ANSWER = object({ released: bool, withheld: bool }, ['released', 'withheld']);
export const WITHHOLD_ANSWER = object({ withheld: bool }, ['withheld']);
export const SERVING_ANSWER = object({ serving: bool }, ['serving']);
export const RESET_ANSWER = object({ removedFaults: int, withheld: bool, serving: bool }, [
  'removedFaults',
  'withheld',
  'serving',
]);
export const PUSH_BODY = object({ node: str, types: { oneOf: [typeNames, str] } });
export const PUSH_ANSWER = object({ streams: int }, ['streams']);
export const DISCONNECT_BODY = object({
  node: str,
  code: { oneOf: [str, { type: 'integer', minimum: 0, maximum: 16 }] },
  message: str,
});
export const DISCONNECT_ANSWER = object({ disconnected: int, code: str }, ['disconnected', 'code']);

const resource = { type: 'object', properties: { '@type': str }, required: ['@type'] };
const resources = { type: 'array', items: resource };
export const RESOURCES_BODY: Schema = {
  oneOf: [
    object({ resources }, ['resources']),
    resources,
    object(
      {
        sets: {
          type: 'array',
          items: object({ name: str, match: { type: 'object' }, resources }, ['resources']),
        },
      },
      ['sets'],
    ),
  ],
};
const changedBySet = {
  type: 'array',
  items: object({ set: str, changed: { type: 'array', items: str } }, ['set', 'changed']),
};
export const RESOURCES_ANSWER: Schema = {
  oneOf: [
    object(
      {
        version: str,
        changed: { type: 'array', items: str },
        warnings: { type: 'array', items: problem },
      },
      ['version', 'changed', 'warnings'],
    ),
    object({ changed: changedBySet, warnings: { type: 'array', items: problem } }, ['changed']),
  ],
};
export const STATE_ANSWER = object({ withheld: bool, streams: { type: 'array' } }, [
  'withheld',
  'streams',
]);
export const READY_ANSWER = object({ ready: bool }, ['ready']);

const scenario: Schema = {
  type: 'object',
  properties: {
    name: str,
    summary: str,
    scope: { type: 'array', items: str },
    releasable: bool,
    params: { type: 'object' },
  },
  required: ['name', 'summary', 'scope', 'releasable', 'params'],
};
export const SCENARIO_ANSWER = scenario;
export const SCENARIOS_ANSWER = object({ scenarios: { type: 'array', items: scenario } }, [
  'scenarios',
]);

export const TOKEN_BODY = object({
  namespace: str,
  serviceAccount: str,
  audience: str,
  audiences: { type: 'array', items: str },
  ttlSeconds: { type: 'integer', minimum: 1 },
});
export const TOKEN_ANSWER = object({ token: str, expiresAt: str, subject: str }, [
  'token',
  'expiresAt',
  'subject',
]);
