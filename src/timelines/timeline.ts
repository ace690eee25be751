/**
 * Timelines: a YAML (or JSON) list of timed steps — apply a fault, remove one, or run a control
 * operation that allows it (release, reset, push, disconnect, withhold, down, up: each
 * operation of src/api/table.ts with `timeline: true`, its input checked by its own fields) —
 * replayed deterministically against a mock istiod, for
 * classroom demos and reproducible failure runs (`mock-istiod serve --scenario file.yaml`).
 *
 *   name: stuck-then-recovers
 *   start: first-stream          # or `serve` (default): when `at: 0s` is
 *   steps:
 *     - at: 0s
 *       fault: withhold
 *       id: hold
 *       note: Envoy waits in PRE_INITIALIZING with connected_state 1
 *     - at: 10s
 *       remove: hold
 *
 * Steps run in time order (file order for equal times), each after the previous one has
 * finished, so the order of effects never depends on timing.
 */
import type * as Yaml from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');
import type { Problem, Result } from '../util/problems.js';
import { DURATION_HINT, parseDuration } from '../util/duration.js';
import { validateFields } from '../core/fields.js';
import type { Operation } from '../api/operation.js';
import { OPERATIONS, type OperationName } from '../api/table.js';
import { resolveFault, type ResolvedFault } from '../faults/spec.js';
import { isObject } from '../util/guards.js';

export type TimelineAction =
  /** Resolved when the timeline is read, so that a step cannot fail on its fault later. */
  | { kind: 'fault'; fault: ResolvedFault }
  | { kind: 'remove'; id: string }
  /** A control operation, its input already checked by its fields. */
  | { kind: 'operation'; name: OperationName; input: Readonly<Record<string, unknown>> };

export interface TimelineStep {
  at: number;
  note?: string;
  action: TimelineAction;
}

export interface Timeline {
  name?: string;
  description?: string;
  start: 'serve' | 'first-stream';
  steps: TimelineStep[];
}

/** The operations a step may run, by name (each is a step key). */
const STEP_OPERATIONS = new Map(
  (OPERATIONS as readonly Operation[]).filter((op) => op.timeline).map((op) => [op.name, op]),
);
const ACTIONS = ['fault', 'remove', ...STEP_OPERATIONS.keys()];
const FAULT_KEYS = ['params', 'scope', 'trigger', 'id'];
const TOP_KEYS = ['name', 'description', 'start', 'steps'];

/** Parses YAML or JSON text into a validated timeline, every problem with its path. */
export function parseTimeline(text: string): Result<Timeline> {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { ok: false, problems: [{ path: '', message: `not valid YAML: ${message}` }] };
  }
  return validateTimeline(doc);
}

export function validateTimeline(doc: unknown): Result<Timeline> {
  if (!isObject(doc) || !Array.isArray(doc.steps)) {
    return { ok: false, problems: [{ path: 'steps', message: 'expected a list of steps' }] };
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(doc)) {
    if (!TOP_KEYS.includes(key)) {
      problems.push({
        path: key,
        message: `unknown field; expected one of: ${TOP_KEYS.join(', ')}`,
      });
    }
  }
  const start = doc.start ?? 'serve';
  if (start !== 'serve' && start !== 'first-stream') {
    problems.push({ path: 'start', message: 'expected serve or first-stream' });
  }
  const ids = new Set<string>();
  const steps = (doc.steps as unknown[]).flatMap((raw, i) => {
    const step = validateStep(raw, `steps[${i}]`, ids, problems);
    return step ? [step] : [];
  });
  if (problems.length > 0) return { ok: false, problems };
  // A stable sort: equal times keep file order.
  steps.sort((a, b) => a.at - b.at);
  return {
    ok: true,
    value: {
      ...(typeof doc.name === 'string' ? { name: doc.name } : {}),
      ...(typeof doc.description === 'string' ? { description: doc.description } : {}),
      start: start as Timeline['start'],
      steps,
    },
  };
}

function validateStep(raw: unknown, path: string, ids: Set<string>, problems: Problem[]) {
  if (!isObject(raw)) {
    problems.push({ path, message: 'expected a step object with "at" and one action' });
    return undefined;
  }
  const at = parseDuration(raw.at);
  if (at === undefined) problems.push({ path: `${path}.at`, message: `expected ${DURATION_HINT}` });
  if (raw.note !== undefined && typeof raw.note !== 'string') {
    problems.push({ path: `${path}.note`, message: 'expected a string' });
  }
  const actions = ACTIONS.filter((a) => raw[a] !== undefined);
  if (actions.length !== 1) {
    problems.push({ path, message: `expected exactly one action: ${ACTIONS.join(', ')}` });
    return undefined;
  }
  const kind = actions[0] ?? '';
  const known = ['at', 'note', kind, ...(kind === 'fault' ? FAULT_KEYS : [])];
  for (const key of Object.keys(raw)) {
    if (!known.includes(key))
      problems.push({ path: `${path}.${key}`, message: 'unknown field in this step' });
  }
  const action = validateAction(kind, raw, path, ids, problems);
  if (at === undefined || !action) return undefined;
  return { at, action, ...(typeof raw.note === 'string' ? { note: raw.note } : {}) };
}

function validateAction(
  kind: string,
  raw: Record<string, unknown>,
  path: string,
  ids: Set<string>,
  problems: Problem[],
): TimelineAction | undefined {
  const value = raw[kind];
  if (kind === 'fault') {
    const spec: Record<string, unknown> = { scenario: value };
    for (const key of FAULT_KEYS) if (raw[key] !== undefined) spec[key] = raw[key];
    const resolved = resolveFault(spec, path);
    if (!resolved.ok) {
      const rename = (p: string) => (p === `${path}.scenario` ? `${path}.fault` : p);
      problems.push(...resolved.problems.map((p) => ({ ...p, path: rename(p.path) })));
      return undefined;
    }
    if (typeof spec.id === 'string') ids.add(spec.id);
    return { kind, fault: resolved.value };
  }
  if (kind === 'remove') {
    if (typeof value === 'string' && ids.has(value)) return { kind, id: value };
    problems.push({
      path: `${path}.remove`,
      message: `expected the id of a fault applied by an earlier step (give that step an "id"), found ${JSON.stringify(value)}`,
    });
    return undefined;
  }
  const op = STEP_OPERATIONS.get(kind);
  if (!op) return undefined;
  return validateOperationStep(op, value, `${path}.${kind}`, problems);
}

/** `push: true`, or `push: {types: [LDS]}`: the operation's input, checked by its fields. */
function validateOperationStep(
  op: Operation,
  value: unknown,
  path: string,
  problems: Problem[],
): TimelineAction | undefined {
  const takesInput = Object.keys(op.input).length > 0;
  if (value !== true && !(takesInput && isObject(value))) {
    problems.push({ path, message: takesInput ? 'expected true or an object' : 'expected true' });
    return undefined;
  }
  const input = validateFields(op.input, value === true ? {} : value, { path });
  if (!input.ok) {
    problems.push(...input.problems);
    return undefined;
  }
  return { kind: 'operation', name: op.name as OperationName, input: input.value };
}
