/**
 * What each stream was about to be sent, per type: the last few versions, so that faults
 * can serve an older one — `stale` (a lagging control plane) and nack's `rollback` (back to
 * the set the proxy last ACKed). Kept per stream, because with per-node resource sets two
 * proxies may get different resources under the same version. Snapshots are immutable and
 * shared, so keeping them is cheap; a stream's history goes when the stream closes.
 */
import type { TypeSnapshot } from '../core/snapshot.js';

const KEEP_PER_TYPE = 8;

export class SnapshotHistory {
  /**
   * By stream, one list per type (oldest first), in a small array rather than a map by type:
   * a stream has a few types, and an idle stream's map cost 180 bytes (docs/BENCHMARKS.md).
   */
  private readonly byStream = new Map<string, TypeSnapshot[][]>();

  /** Notes a snapshot for a stream (a version already noted is moved to the end). */
  record(connectionId: string, snapshot: TypeSnapshot): void {
    const lists = this.byStream.get(connectionId);
    const list = lists && listOf(lists, snapshot.typeUrl);
    if (!list) {
      // `concat`, not a spread: V8 gives a spread array room for 17 more (136 bytes).
      this.byStream.set(connectionId, lists ? lists.concat([[snapshot]]) : [[snapshot]]);
      return;
    }
    if (list[list.length - 1] === snapshot) return;
    // In place: this runs for every response of every push.
    const index = list.findIndex((s) => s.version === snapshot.version);
    if (index >= 0) list.splice(index, 1);
    list.push(snapshot);
    if (list.length > KEEP_PER_TYPE) list.shift();
  }

  /** The snapshot of `typeUrl` at `version` this stream was sent, if any. */
  find(
    connectionId: string,
    typeUrl: string,
    version: string | undefined,
  ): TypeSnapshot | undefined {
    if (version === undefined) return undefined;
    return this.list(connectionId, typeUrl).find((s) => s.version === version);
  }

  /** The snapshot this stream saw just before `version` (the previous push of the type). */
  before(connectionId: string, typeUrl: string, version: string): TypeSnapshot | undefined {
    const list = this.list(connectionId, typeUrl);
    const index = list.findIndex((s) => s.version === version);
    return index > 0 ? list[index - 1] : index < 0 ? list.at(-1) : undefined;
  }

  forget(connectionId: string): void {
    this.byStream.delete(connectionId);
  }

  private list(connectionId: string, typeUrl: string): TypeSnapshot[] {
    const lists = this.byStream.get(connectionId);
    return (lists && listOf(lists, typeUrl)) ?? [];
  }
}

/** The list of `typeUrl` among a stream's (a loop: this runs for every response). */
function listOf(lists: TypeSnapshot[][], typeUrl: string): TypeSnapshot[] | undefined {
  for (const list of lists) if (list[0]?.typeUrl === typeUrl) return list;
  return undefined;
}
