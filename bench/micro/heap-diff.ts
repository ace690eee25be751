/**
 * What grew between two V8 heap snapshots, by node type and constructor (objects by their
 * constructor, closures by their function's name; strings, numbers and code by type only),
 * per stream: `(bytes in b − bytes in a) / streams`. Used by heap-per-stream.ts.
 */
import { readFileSync } from 'node:fs';

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type Totals = Map<string, { count: number; bytes: number }>;

const BY_TYPE_ONLY = new Set(['string', 'concatenated string', 'sliced string', 'number', 'code']);

function totals(file: string): Totals {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshotFile;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [width, type, name, size] = [
    fields.length,
    fields.indexOf('type'),
    fields.indexOf('name'),
    fields.indexOf('self_size'),
  ];
  const out: Totals = new Map();
  for (let i = 0; i < heap.nodes.length; i += width) {
    const kind = types[heap.nodes[i + type] as number] ?? '?';
    const label = BY_TYPE_ONLY.has(kind)
      ? kind
      : `${kind}:${(heap.strings[heap.nodes[i + name] as number] ?? '').slice(0, 60)}`;
    const row = out.get(label) ?? { count: 0, bytes: 0 };
    row.count += 1;
    row.bytes += heap.nodes[i + size] as number;
    out.set(label, row);
  }
  return out;
}

export interface Growth {
  label: string;
  /** Objects and bytes per stream (negative: fewer in b). */
  count: number;
  bytes: number;
}

/** Rows of what grew from `a` to `b`, per stream, largest first. */
export function heapGrowth(a: string, b: string, streams: number): Growth[] {
  const [before, after] = [totals(a), totals(b)];
  const labels = new Set([...before.keys(), ...after.keys()]);
  return [...labels]
    .map((label) => {
      const [x, y] = [before.get(label), after.get(label)];
      return {
        label,
        count: ((y?.count ?? 0) - (x?.count ?? 0)) / streams,
        bytes: ((y?.bytes ?? 0) - (x?.bytes ?? 0)) / streams,
      };
    })
    .sort((p, q) => q.bytes - p.bytes);
}
