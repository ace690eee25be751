/**
 * Warns when connected proxies collide: two streams with the same node id, or the same pod
 * (`<pod>.<namespace>`) within the same `CLUSTER_ID`. istiod keys configuration and
 * endpoints by these; proxies that share them get each other's configuration (the course's
 * "multi-cluster config gets mixed" symptom, where two clusters share one CLUSTER_ID).
 *
 * Open streams are indexed by those keys as they open and close, so that a new stream is
 * checked in constant time: scanning every stream on each open made a ramp of N streams
 * cost O(N²) (seconds at 5,000 streams; see docs/BENCHMARKS.md).
 */
import type { Logger } from 'pino';
import type { ServerEventEmitter, StreamView } from '../core/events.js';

/** The open streams with one key: the stream itself while it is alone, else them by connection id. */
type Holders = StreamView | Map<string, StreamView>;

/**
 * Open streams by one key, in the order they opened. A key is nearly always held by one
 * stream, kept as is: a map per key cost an idle stream about 400 bytes (docs/BENCHMARKS.md).
 */
class KeyIndex {
  private readonly byKey = new Map<string, Holders>();

  get size(): number {
    return this.byKey.size;
  }

  /** The open streams with `key`, other than `stream`. */
  others(key: string, stream: StreamView): StreamView[] {
    const held = this.byKey.get(key);
    const all = held === undefined ? [] : held instanceof Map ? [...held.values()] : [held];
    return all.filter((s) => s.connectionId !== stream.connectionId);
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
  const report = (key: string, others: StreamView[], opened: StreamView) => {
    const all = [...others, opened];
    log.warn(
      {
        key,
        connections: all.map(
          (s) => `${s.connectionId} (${s.peer}, ${s.proxy.ipAddresses.join(',')})`,
        ),
      },
      `proxies collide on ${key}: istiod cannot tell them apart, and they get each other's configuration`,
    );
    events.emit('collision', { key, streams: all });
  };
  const warn = (opened: StreamView) => {
    const { proxy } = opened;
    const sameNode = byNodeId.others(proxy.nodeId, opened);
    if (sameNode.length > 0) return report(`node id "${proxy.nodeId}"`, sameNode, opened);
    const samePod = byPod.get(proxy.clusterId)?.others(proxy.id, opened) ?? [];
    if (samePod.length > 0)
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
