/**
 * V8's heap by space, as a bench server's `/bench/stats` reports it: each space's committed
 * size and what is live in it, in bytes. RSS follows the committed sizes, which V8 grows with
 * the allocation rate (the young generation most), not only with what is kept.
 */
import { getHeapSpaceStatistics } from 'node:v8';

export type HeapSpaces = Record<string, { size: number; used: number }>;

export function heapSpaces(): HeapSpaces {
  const spaces: HeapSpaces = {};
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = { size: space.space_size, used: space.space_used_size };
  }
  return spaces;
}
