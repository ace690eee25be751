/**
 * `serve --replay <file>`: a recording (`serve --relay … --record <file>`, server/relay-record.ts)
 * served with no istiod, as the last state each proxy was sent: per node, the resources of
 * each type at the end of the recording (a SotW response replaces its type, a delta response
 * changes it), at istiod's last version of each type. Each node gets a resource set of its own
 * (matched by its node id), so a proxy reconnecting to the mock is served what istiod last
 * served it. Every line's problem is named by its line number.
 */
import { readFileSync } from 'node:fs';
import { MockIstiodError } from '../util/errors.js';
import { isObject } from '../util/guards.js';
import { resourceName } from '../snapshot/resource-set.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';

/** The largest recording read (a recording is cut at 1 GiB as it is written). */
const MAX_REPLAY_BYTES = 1024 * 1024 * 1024;

interface NodeState {
  /** Type URL → resource name → resource JSON. */
  types: Map<string, Map<string, unknown>>;
  versions: Map<string, string>;
}

/** One proxy's recording, as the states it went through, each at its time. */
export interface ReplayedNode {
  node: string;
  /**
   * Its state after each burst of responses (a push: responses less than `BURST_GAP_MS`
   * apart), with the time of the burst's first response after the node's first, in ms.
   */
  steps: { atMs: number; set: ResourceSetSpec }[];
}

/** Responses closer than this belong to one push. */
export const BURST_GAP_MS = 250;

/** The recording's last state of each node: what `serve --replay <file>` serves. */
export function replaySets(path: string): ResourceSetSpec[] {
  return lastStates(readRecording(path));
}

/** Each node's first recorded state: where a re-enactment starts (app/reenact.ts). */
export function firstStates(nodes: readonly ReplayedNode[]): ResourceSetSpec[] {
  return nodes.flatMap(({ steps }) => (steps[0] ? [steps[0].set] : []));
}

/** Each node's last recorded state. */
export function lastStates(nodes: readonly ReplayedNode[]): ResourceSetSpec[] {
  return nodes.flatMap(({ steps }) => (steps.length > 0 ? [(steps.at(-1) as ReplayStep).set] : []));
}

type ReplayStep = ReplayedNode['steps'][number];

/** Reads a recording into each node's steps; every problem names its line. */
export function readRecording(path: string): ReplayedNode[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new MockIstiodError('USAGE', `--replay: cannot read ${path}: ${reason}`);
  }
  if (text.length > MAX_REPLAY_BYTES) {
    throw new MockIstiodError('USAGE', `--replay: ${path} is larger than 1 GiB`);
  }
  const nodes = new Map<string, Timed>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `--replay: ${path}:${i + 1}`;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new MockIstiodError('USAGE', `${where}: not a JSON line`);
    }
    const { node, at } = recorded(entry, where);
    let state = nodes.get(node);
    if (!state) {
      state = { types: new Map(), versions: new Map(), first: at, burst: at, last: at, steps: [] };
      nodes.set(node, state);
    } else if (at - state.last >= BURST_GAP_MS) {
      state.steps.push({ atMs: state.burst - state.first, set: setOf(node, state) });
      state.burst = at;
    }
    apply(state, entry as Recorded);
    state.last = at;
  });
  if (nodes.size === 0) throw new MockIstiodError('USAGE', `--replay: ${path} records nothing`);
  return [...nodes].map(([node, state]) => ({
    node,
    steps: [...state.steps, { atMs: state.burst - state.first, set: setOf(node, state) }],
  }));
}

/** A node's state as the recording is read: its first response, its burst's, its last. */
type Timed = NodeState & { first: number; burst: number; last: number; steps: ReplayStep[] };

function setOf(node: string, state: NodeState): ResourceSetSpec {
  return {
    name: node,
    match: { nodeId: node },
    resources: [...state.types.values()].flatMap((byName) => [...byName.values()]),
    versions: Object.fromEntries(state.versions),
  };
}

interface Recorded {
  node: string;
  typeUrl: string;
  version: string;
  resources: unknown[];
  protocol?: unknown;
  removed?: unknown;
}

/** The line's node and time (ms), or a `USAGE` error naming the line. */
function recorded(entry: unknown, where: string): { node: string; at: number } {
  if (
    !isObject(entry) ||
    typeof entry['node'] !== 'string' ||
    typeof entry['typeUrl'] !== 'string' ||
    typeof entry['version'] !== 'string' ||
    !Array.isArray(entry['resources'])
  ) {
    throw new MockIstiodError(
      'USAGE',
      `${where}: expected a recorded response (node, typeUrl, version, resources)`,
    );
  }
  const at = typeof entry['at'] === 'string' ? Date.parse(entry['at']) : NaN;
  if (Number.isNaN(at)) throw new MockIstiodError('USAGE', `${where}: expected "at", a time`);
  for (const resource of entry['resources'] as unknown[]) {
    const name = isObject(resource) ? resourceName(entry['typeUrl'], resource) : undefined;
    if (typeof name !== 'string')
      throw new MockIstiodError('USAGE', `${where}: a resource with no name`);
  }
  return { node: entry['node'], at };
}

function apply(state: NodeState, entry: Recorded): void {
  const { typeUrl, version, resources } = entry;
  const delta = entry.protocol === 'delta';
  // SotW: the response is the type's state; delta: it changes it.
  const byName = new Map<string, unknown>(delta ? state.types.get(typeUrl) : undefined);
  if (delta && Array.isArray(entry.removed)) {
    for (const name of entry.removed) byName.delete(String(name));
  }
  for (const resource of resources) {
    byName.set(resourceName(typeUrl, resource as Record<string, unknown>) as string, resource);
  }
  state.types.set(typeUrl, byName);
  state.versions.set(typeUrl, version);
}
