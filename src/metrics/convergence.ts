/**
 * `pilot_proxy_convergence_time` as istiod means it: the delay between a config change and
 * a proxy having been sent every changed type it subscribes to. Several changes before the
 * proxy caught up count from the first (istiod merges push requests keeping the earliest
 * start). A held or delayed response keeps the clock running: that is what a proxy waiting
 * on a withholding control plane experiences.
 */
import type { StreamView } from '../core/events.js';

interface Pending {
  startMs: number;
  types: Set<string>;
}

export class ConvergenceTracker {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly observe: (seconds: number) => void,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The resource set changed at `atMs`: each stream now owes the changed types it subscribes to. */
  onChange(streams: Iterable<StreamView>, changed: readonly string[], atMs: number): void {
    // Runs over every stream on every push: a stream's entry is kept (emptied) between
    // changes, so that a push allocates nothing per stream.
    for (const stream of streams) {
      let entry = this.pending.get(stream.connectionId);
      for (const typeUrl of changed) {
        if (!stream.types.has(typeUrl)) continue;
        if (!entry) {
          entry = { startMs: atMs, types: new Set() };
          this.pending.set(stream.connectionId, entry);
        } else if (entry.types.size === 0) entry.startMs = atMs;
        entry.types.add(typeUrl);
      }
    }
  }

  onResponse(connectionId: string, typeUrl: string): void {
    const entry = this.pending.get(connectionId);
    if (!entry?.types.delete(typeUrl) || entry.types.size > 0) return;
    this.observe(Math.max(0, this.nowMs() - entry.startMs) / 1000);
  }

  onClose(connectionId: string): void {
    this.pending.delete(connectionId);
  }

  /** Streams still waiting for part of a change (for tests and debugging). */
  get waiting(): number {
    let waiting = 0;
    for (const entry of this.pending.values()) if (entry.types.size > 0) waiting += 1;
    return waiting;
  }
}
