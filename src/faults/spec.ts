/**
 * Validating a fault as written (JSON, YAML, library call, command-line flag) into what the
 * engine runs: the scenario, checked parameters with defaults, the scope and the trigger.
 * Every problem is reported with its path (`params.ms`, `scope.types[1]`, `trigger.after`).
 */
import type { Problem, Result } from '../util/problems.js';
import { DURATION_HINT, parseDuration } from '../util/duration.js';
import type {
  FaultScope,
  FaultSpec,
  FaultTrigger,
  Params,
  ScenarioDefinition,
  TriggerSpec,
} from './model.js';
import { validateFields, type FieldOptions } from '../core/fields.js';
import { findScenario, scenarioNames } from './registry.js';
import { parseTypeName, parseTypeNames, TYPE_NAME_HINT } from '../core/types/registry.js';
import { isObject } from '../util/guards.js';
import { globProblem } from '../util/glob.js';

export interface ResolvedFault {
  id: string | undefined;
  scenario: ScenarioDefinition;
  params: Params;
  scope: FaultScope;
  trigger: FaultTrigger | undefined;
  /** The trigger as given (shown back in listings). */
  triggerSpec: TriggerSpec | undefined;
}

const SPEC_KEYS = ['scenario', 'id', 'params', 'scope', 'trigger'];
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The message for a scenario name that does not exist, listing the valid ones. */
export function unknownScenarioMessage(name: unknown): string {
  return `unknown scenario ${JSON.stringify(name)}; valid scenarios: ${scenarioNames().join(', ')}`;
}

export function resolveFault(
  input: unknown,
  path = '',
  options: Pick<FieldOptions, 'fromText'> = {},
): Result<ResolvedFault> {
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (!isObject(input)) {
    return {
      ok: false,
      problems: [{ path, message: 'expected a fault object with a "scenario"' }],
    };
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(input)) {
    if (!SPEC_KEYS.includes(key)) {
      problems.push({
        path: at(key),
        message: `unknown field; expected one of: ${SPEC_KEYS.join(', ')}`,
      });
    }
  }
  const spec = input as Partial<FaultSpec>;
  if (spec.id !== undefined && (typeof spec.id !== 'string' || !ID_PATTERN.test(spec.id))) {
    problems.push({
      path: at('id'),
      message: `expected letters, digits, '.', '_' or '-' (at most 64), found ${JSON.stringify(spec.id)}`,
    });
  }
  const scenario = findScenario(spec.scenario);
  if (!scenario) {
    problems.push({ path: at('scenario'), message: unknownScenarioMessage(spec.scenario) });
    return { ok: false, problems };
  }
  const params = validateFields(scenario.params, spec.params, {
    path: at('params'),
    noun: 'parameter',
    ...options,
  });
  if (!params.ok) problems.push(...params.problems);
  else if (scenario.check) {
    problems.push(...scenario.check(params.value).map((p) => ({ ...p, path: at(p.path) })));
  }
  const scope = resolveScope(spec.scope, scenario, at('scope'), problems);
  const trigger = resolveTrigger(spec.trigger, at('trigger'), problems, options);
  if (problems.length > 0 || !params.ok) return { ok: false, problems };
  return {
    ok: true,
    value: {
      id: spec.id,
      scenario,
      params: params.value,
      scope,
      trigger,
      triggerSpec: spec.trigger,
    },
  };
}

function resolveScope(
  raw: unknown,
  scenario: ScenarioDefinition,
  path: string,
  problems: Problem[],
): FaultScope {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    problems.push({ path, message: 'expected an object with "node" and/or "types"' });
    return {};
  }
  const scope: { node?: string; types?: readonly string[] } = {};
  for (const key of Object.keys(raw)) {
    if (key !== 'node' && key !== 'types') {
      problems.push({ path: `${path}.${key}`, message: 'unknown field; expected node or types' });
    }
  }
  if (scenario.scope === 'none' && Object.keys(raw).length > 0) {
    problems.push({
      path,
      message: `${scenario.name} acts on the whole server: it takes no scope`,
    });
    return {};
  }
  if (raw.node !== undefined) {
    const problem = globProblem(raw.node);
    if (problem === undefined) scope.node = raw.node as string;
    else problems.push({ path: `${path}.node`, message: problem });
  }
  if (raw.types !== undefined) {
    if (scenario.scope === 'node') {
      problems.push({
        path: `${path}.types`,
        message: `${scenario.name} chooses its resource type itself: scope.types does not apply`,
      });
    } else {
      scope.types = resolveTypes(raw.types, `${path}.types`, problems);
    }
  }
  return scope;
}

function resolveTypes(raw: unknown, path: string, problems: Problem[]): string[] {
  const types = parseTypeNames(raw, path);
  if (types.ok) return types.value;
  problems.push(...types.problems);
  return [];
}

function resolveTrigger(
  raw: unknown,
  path: string,
  problems: Problem[],
  options: Pick<FieldOptions, 'fromText'>,
): FaultTrigger | undefined {
  if (raw === undefined) return undefined;
  const kinds = ['after', 'afterResponses', 'onRequest'];
  if (
    !isObject(raw) ||
    Object.keys(raw).length !== 1 ||
    !kinds.includes(Object.keys(raw)[0] ?? '')
  ) {
    problems.push({ path, message: `expected exactly one of: ${kinds.join(', ')}` });
    return undefined;
  }
  if (raw.after !== undefined) {
    const ms = parseDuration(raw.after);
    if (ms === undefined)
      problems.push({ path: `${path}.after`, message: `expected ${DURATION_HINT}` });
    return ms === undefined ? undefined : { kind: 'after', ms };
  }
  if (raw.afterResponses !== undefined) {
    const text = options.fromText === true && typeof raw.afterResponses === 'string';
    const count = text ? Number(raw.afterResponses) : raw.afterResponses;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
      problems.push({ path: `${path}.afterResponses`, message: 'expected an integer ≥ 1' });
      return undefined;
    }
    return { kind: 'afterResponses', count };
  }
  return resolveOnRequest(raw.onRequest, `${path}.onRequest`, problems);
}

function resolveOnRequest(
  raw: unknown,
  path: string,
  problems: Problem[],
): FaultTrigger | undefined {
  if (!isObject(raw)) {
    problems.push({ path, message: 'expected an object with optional "node" and "type"' });
    return undefined;
  }
  const trigger: { kind: 'onRequest'; node?: string; typeUrl?: string } = { kind: 'onRequest' };
  for (const key of Object.keys(raw)) {
    if (key !== 'node' && key !== 'type') {
      problems.push({ path: `${path}.${key}`, message: 'unknown field; expected node or type' });
    }
  }
  if (raw.node !== undefined) {
    const problem = globProblem(raw.node);
    if (problem === undefined) trigger.node = raw.node as string;
    else problems.push({ path: `${path}.node`, message: problem });
  }
  if (raw.type !== undefined) {
    const url = parseTypeName(raw.type);
    if (url) trigger.typeUrl = url;
    else problems.push({ path: `${path}.type`, message: `expected ${TYPE_NAME_HINT}` });
  }
  return trigger;
}
