/**
 * Warns when connected proxies collide: two streams with the same node id, or the same pod
 * (`<pod>.<namespace>`) within the same `CLUSTER_ID`. istiod keys configuration and
 * endpoints by these; proxies that share them get each other's configuration (the course's
 * "multi-cluster config gets mixed" symptom, where two clusters share one CLUSTER_ID).
 *
 * Open streams are indexed by those keys as they open and close, so that a new stream is
 * checked in constant time: scanning every stream on each open made a ramp of N streams
 * cost O(N²) (seconds at 5,000 streams; see docs/BENCHMARKS.md).
 *
 * A warning names at most {@link NAMED_AT_MOST} of the colliding streams and counts them
 * all: naming every one made N proxies with one node id (a connection storm's sidecars)
 * cost O(N²) too, in the warnings alone (108 MB of log for 3,000 connections at once;
 * docs/BENCHMARKS.md, "The extreme case"). Past that many, a key's warning is logged only
 * when its count reaches a power of two, so that such a fleet logs a few lines, not one per
 * proxy; the `collision` event still comes for every stream that opens.
 */
import type { Logger } from 'pino';
import type { ServerEventEmitter, StreamView } from '../core/events.js';

/** The open streams with one key: the stream itself while it is alone, else them by connection id. */
type Holders = StreamView | Map<string, StreamView>;

/** How many colliding streams a warning and a `collision` event name (the newcomer included). */
export const NAMED_AT_MOST = 5;

/** The streams open with a key besides a newcomer: the oldest few of them, and how many in all. */
interface Others {
  oldest: readonly StreamView[];
  count: number;
}

/** No other stream has the key: every new stream's answer, one frozen object. */
const NO_OTHERS: Others = Object.freeze({ oldest: Object.freeze([]), count: 0 });

/**
 * Open streams by one key, in the order they opened. A key is nearly always held by one
 * stream, kept as is: a map per key cost an idle stream about 400 bytes (docs/BENCHMARKS.md).
 */
class KeyIndex {
  private readonly byKey = new Map<string, Holders>();

  get size(): number {
    return this.byKey.size;
  }

  /**
   * The open streams with `key` other than `stream`: the `atMost` oldest, and the count. Reads
   * no more than `atMost + 1` of them, however many share the key.
   */
  others(key: string, stream: StreamView, atMost: number): Others {
    const held = this.byKey.get(key);
    if (held === undefined) return NO_OTHERS;
    if (!(held instanceof Map)) {
      const alone = held.connectionId === stream.connectionId ? [] : [held];
      return { oldest: alone, count: alone.length };
    }
    const oldest: StreamView[] = [];
    for (const s of held.values()) {
      if (oldest.length === atMost) break;
      if (s.connectionId !== stream.connectionId) oldest.push(s);
    }
    return { oldest, count: held.size - (held.has(stream.connectionId) ? 1 : 0) };
  }

  add(key: string, stream: StreamView): void {
    const held = this.byKey.get(key);
    if (held instanceof Map) held.set(stream.connectionId, stream);
    else if (held === undefined || held.connectionId === stream.connectionId)
      this.byKey.set(key, stream);
    else
      this.byKey.set(
        key,
        new Map([
          [held.connectionId, held],
          [stream.connectionId, stream],
        ]),
      );
  }

  clear(): void {
    this.byKey.clear();
  }

  remove(key: string, stream: StreamView): void {
    const held = this.byKey.get(key);
    if (held instanceof Map) {
      held.delete(stream.connectionId);
      if (held.size === 0) this.byKey.delete(key);
    } else if (held?.connectionId === stream.connectionId) this.byKey.delete(key);
  }
}

export function attachCollisionWarnings(events: ServerEventEmitter, log: Logger): () => void {
  // Keyed by strings the streams already hold (no key string built per stream): the node id,
  // and the pod (`proxy.id`) within its CLUSTER_ID.
  const byNodeId = new KeyIndex();
  const byPod = new Map<string, KeyIndex>();
  const report = (key: string, others: Others, opened: StreamView) => {
    const named = [...others.oldest, opened];
    const count = others.count + 1;
    const everyOne = count <= NAMED_AT_MOST;
    if (everyOne || (count & (count - 1)) === 0) logCollision(key, named, count, everyOne);
    events.emit('collision', { key, streams: named, count });
  };
  const logCollision = (key: string, named: StreamView[], count: number, everyOne: boolean) => {
    log.warn(
      {
        key,
        connections: named.map(
          (s) => `${s.connectionId} (${s.peer}, ${s.proxy.ipAddresses.join(',')})`,
        ),
        ...(!everyOne && { count }),
      },
      `proxies collide on ${key}: istiod cannot tell them apart, and they get each other's configuration` +
        (everyOne ? '' : ` (${count} connections, ${named.length} named)`),
    );
  };
  const warn = (opened: StreamView) => {
    const { proxy } = opened;
    const atMost = NAMED_AT_MOST - 1;
    const sameNode = byNodeId.others(proxy.nodeId, opened, atMost);
    if (sameNode.count > 0) return report(`node id "${proxy.nodeId}"`, sameNode, opened);
    const samePod = byPod.get(proxy.clusterId)?.others(proxy.id, opened, atMost);
    if (samePod && samePod.count > 0)
      report(`pod "${proxy.id}" in CLUSTER_ID "${proxy.clusterId}"`, samePod, opened);
  };
  const onOpen = (opened: StreamView) => {
    warn(opened);
    const { proxy } = opened;
    byNodeId.add(proxy.nodeId, opened);
    let pods = byPod.get(proxy.clusterId);
    if (!pods) byPod.set(proxy.clusterId, (pods = new KeyIndex()));
    pods.add(proxy.id, opened);
  };
  const onClose = (closed: StreamView) => {
    const { proxy } = closed;
    byNodeId.remove(proxy.nodeId, closed);
    const pods = byPod.get(proxy.clusterId);
    pods?.remove(proxy.id, closed);
    if (pods?.size === 0) byPod.delete(proxy.clusterId);
  };
  events.on('stream-open', onOpen);
  events.on('stream-close', onClose);
  return () => {
    events.off('stream-open', onOpen);
    events.off('stream-close', onClose);
    byNodeId.clear();
    byPod.clear();
  };
}
