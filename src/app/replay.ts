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

export function replaySets(path: string): ResourceSetSpec[] {
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
  const nodes = new Map<string, NodeState>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `--replay: ${path}:${i + 1}`;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new MockIstiodError('USAGE', `${where}: not a JSON line`);
    }
    apply(nodes, entry, where);
  });
  if (nodes.size === 0) throw new MockIstiodError('USAGE', `--replay: ${path} records nothing`);
  return [...nodes].map(([node, state]) => ({
    name: node,
    match: { nodeId: node },
    resources: [...state.types.values()].flatMap((byName) => [...byName.values()]),
    versions: Object.fromEntries(state.versions),
  }));
}

function apply(nodes: Map<string, NodeState>, entry: unknown, where: string): void {
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
  const { node, typeUrl, version, resources } = entry;
  const state: NodeState = nodes.get(node) ?? { types: new Map(), versions: new Map() };
  nodes.set(node, state);
  const delta = entry['protocol'] === 'delta';
  // SotW: the response is the type's state; delta: it changes it.
  const byName = new Map<string, unknown>(delta ? state.types.get(typeUrl) : undefined);
  const removed: unknown = entry['removed'];
  if (delta && Array.isArray(removed)) {
    for (const name of removed) byName.delete(String(name));
  }
  for (const resource of resources as unknown[]) {
    const name = isObject(resource) ? resourceName(typeUrl, resource) : undefined;
    if (typeof name !== 'string')
      throw new MockIstiodError('USAGE', `${where}: a resource with no name`);
    byName.set(name, resource);
  }
  state.types.set(typeUrl, byName);
  state.versions.set(typeUrl, version);
}
