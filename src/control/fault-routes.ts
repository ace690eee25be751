/**
 * The fault endpoints of the control API: the scenarios (with their parameters' JSON
 * Schema), the faults applied (apply, list, inspect, remove), per-test cleanup, and the
 * server operations tests reach for most: push again, disconnect streams, port down and up.
 */
import {
  describeScenario,
  describeScenarios,
  findScenario,
  scenarioNames,
} from '../faults/registry.js';
import { unknownScenarioMessage } from '../faults/spec.js';
import { parseGrpcStatus, grpcStatusName as statusName } from '../core/grpc-status.js';
import { statusHint } from '../core/fields.js';
import { parseTypeNames } from '../core/types/registry.js';
import type { StreamSelector } from '../faults/model.js';
import type { Problem } from '../util/problems.js';
import { notFound, problemsResponse } from './responses.js';
import type { Route } from './router.js';
import type { FaultTarget } from './target.js';
import { isObject } from '../util/guards.js';
import {
  DISCONNECT_ANSWER,
  DISCONNECT_BODY,
  FAULT_ANSWER,
  FAULTS_ANSWER,
  faultRequest,
  PUSH_ANSWER,
  PUSH_BODY,
  REMOVED_ANSWER,
  RESET_ANSWER,
  SCENARIO_ANSWER,
  SCENARIOS_ANSWER,
  SERVING_ANSWER,
} from './api-schemas.js';

/** `{ node?, types? }` (push) or `{ node?, code?, message? }` (disconnect), every problem listed. */
function readSelector(
  body: unknown,
  allowed: readonly string[],
): { selector: StreamSelector & { code?: number; message?: string } } | { problems: Problem[] } {
  if (body === undefined) return { selector: {} };
  if (!isObject(body)) return { problems: [{ path: '', message: 'expected a JSON object' }] };
  const problems: Problem[] = [];
  const selector: StreamSelector & { code?: number; message?: string } = {};
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      problems.push({
        path: key,
        message: `unknown field; expected one of: ${allowed.join(', ')}`,
      });
    }
  }
  if (body.node !== undefined) {
    if (typeof body.node === 'string' && body.node !== '') selector.node = body.node;
    else problems.push({ path: 'node', message: 'expected a node-id glob such as "sidecar~*"' });
  }
  if (body.types !== undefined) {
    const types = parseTypeNames(Array.isArray(body.types) ? body.types : [body.types], 'types');
    if (types.ok) selector.types = types.value;
    else problems.push(...types.problems);
  }
  if (body.code !== undefined) {
    const code = parseGrpcStatus(body.code);
    if (code === undefined) problems.push({ path: 'code', message: statusHint(body.code) });
    else selector.code = code;
  }
  if (body.message !== undefined) {
    if (typeof body.message === 'string') selector.message = body.message;
    else problems.push({ path: 'message', message: 'expected a string' });
  }
  return problems.length > 0 ? { problems } : { selector };
}

export function faultRoutes(target: FaultTarget): Route[] {
  return [
    {
      method: 'GET',
      path: '/control/scenarios',
      summary: 'fault scenarios, each with the JSON Schema of its parameters',
      answer: SCENARIOS_ANSWER,
      handle: () => ({ status: 200, body: { scenarios: describeScenarios() } }),
    },
    {
      method: 'GET',
      path: '/control/scenarios/:name',
      summary: 'one fault scenario',
      answer: SCENARIO_ANSWER,
      handle: ({ params }) => {
        const scenario = findScenario(params.name);
        if (!scenario)
          return notFound(unknownScenarioMessage(params.name), { scenarios: scenarioNames() });
        return { status: 200, body: describeScenario(scenario) };
      },
    },
    {
      method: 'GET',
      path: '/control/faults',
      summary: 'the faults applied, with their state and counts',
      answer: FAULTS_ANSWER,
      handle: () => ({ status: 200, body: { faults: target.faults.list() } }),
    },
    {
      method: 'POST',
      path: '/control/faults',
      summary: 'apply a fault: {"scenario", "params", "scope", "trigger", "id"}',
      body: faultRequest(),
      answer: FAULT_ANSWER,
      success: 201,
      handle: async ({ body }) => {
        if (isObject(body) && body.scenario !== undefined && !findScenario(body.scenario)) {
          return notFound(unknownScenarioMessage(body.scenario), { scenarios: scenarioNames() });
        }
        const applied = await target.faults.apply(body);
        if (!applied.ok) return problemsResponse('invalid fault', applied.problems);
        return { status: 201, body: { fault: applied.value } };
      },
    },
    {
      method: 'DELETE',
      path: '/control/faults',
      summary: 'remove every fault',
      answer: REMOVED_ANSWER,
      handle: async () => ({ status: 200, body: { removed: await target.faults.clear() } }),
    },
    {
      method: 'GET',
      path: '/control/faults/:id',
      summary: 'one fault',
      answer: FAULT_ANSWER,
      handle: ({ params }) => {
        const fault = target.faults.get(params.id ?? '');
        return fault
          ? { status: 200, body: { fault } }
          : notFound(`no fault with id "${params.id}"`);
      },
    },
    {
      method: 'DELETE',
      path: '/control/faults/:id',
      summary: 'remove a fault and undo its effect',
      answer: REMOVED_ANSWER,
      handle: async ({ params }) => {
        const removed = await target.faults.remove(params.id ?? '');
        return removed
          ? { status: 200, body: { removed } }
          : notFound(`no fault with id "${params.id}"`);
      },
    },
    {
      method: 'POST',
      path: '/control/reset',
      summary:
        'per-test cleanup: no faults, nothing held, port up, start-up resources, empty journal',
      answer: RESET_ANSWER,
      handle: async () => {
        const removed = target.faults.list().length;
        await target.reset();
        return {
          status: 200,
          body: { removedFaults: removed, withheld: target.withheld, serving: target.serving },
        };
      },
    },
    {
      method: 'POST',
      path: '/control/push',
      summary: 'send the current version again: {"node": glob, "types": ["LDS"]}, both optional',
      body: PUSH_BODY,
      answer: PUSH_ANSWER,
      handle: ({ body }) => {
        const read = readSelector(body, ['node', 'types']);
        if ('problems' in read) return problemsResponse('invalid push', read.problems);
        return { status: 200, body: { streams: target.push(read.selector) } };
      },
    },
    {
      method: 'POST',
      path: '/control/down',
      summary: 'close the xDS port, as when istiod goes away, until POST /control/up',
      answer: SERVING_ANSWER,
      handle: async () => {
        await target.down();
        return { status: 200, body: { serving: target.serving } };
      },
    },
    {
      method: 'POST',
      path: '/control/up',
      summary: 'open the xDS port again on the same address',
      answer: SERVING_ANSWER,
      handle: async () => {
        await target.up();
        return { status: 200, body: { serving: target.serving } };
      },
    },
    {
      method: 'POST',
      path: '/control/disconnect',
      summary: 'end streams: {"node": glob, "code": "UNAVAILABLE", "message": "…"}, all optional',
      body: DISCONNECT_BODY,
      answer: DISCONNECT_ANSWER,
      handle: ({ body }) => {
        const read = readSelector(body, ['node', 'code', 'message']);
        if ('problems' in read) return problemsResponse('invalid disconnect', read.problems);
        const { code, message, ...selector } = read.selector;
        const count = target.disconnect(selector, code, message);
        return {
          status: 200,
          body: { disconnected: count, code: statusName(code ?? 14) },
        };
      },
    },
  ];
}
