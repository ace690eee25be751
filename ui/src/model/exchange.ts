/** What the sequence diagram derives from the exchange. */
import type { ExchangeItem } from './state.js';

/**
 * The journal seq numbers of the requests still waiting: those that arrived while responses
 * were withheld, with no later response of their type on their stream (nor a close).
 */
export function stillWaiting(items: readonly ExchangeItem[]): Set<number> {
  // Per stream and type, the waiting requests not answered yet.
  const waiting = new Map<string, number[]>();
  for (const item of items) {
    if (!('entry' in item)) continue;
    const { connectionId, typeUrl, direction, kind, seq } = item.entry;
    const key = `${connectionId}|${typeUrl}`;
    if (direction === 'request' && item.entry.waiting)
      waiting.set(key, [...(waiting.get(key) ?? []), seq]);
    else if (kind === 'response') waiting.delete(key);
    else if (kind === 'close') {
      for (const k of [...waiting.keys()]) if (k.startsWith(`${connectionId}|`)) waiting.delete(k);
    }
  }
  return new Set([...waiting.values()].flat());
}
