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

function keys(stream: StreamView): string[] {
  const { proxy } = stream;
  return [`node id "${proxy.nodeId}"`, `pod "${proxy.id}" in CLUSTER_ID "${proxy.clusterId}"`];
}

export function attachCollisionWarnings(events: ServerEventEmitter, log: Logger): () => void {
  /** key → the open streams that have it, by connection id, in the order they opened. */
  const index = new Map<string, Map<string, StreamView>>();
  const warn = (opened: StreamView) => {
    for (const key of keys(opened)) {
      const others = [...(index.get(key)?.values() ?? [])].filter(
        (s) => s.connectionId !== opened.connectionId,
      );
      if (others.length === 0) continue;
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
      return;
    }
  };
  const onOpen = (opened: StreamView) => {
    warn(opened);
    for (const key of keys(opened)) {
      let streams = index.get(key);
      if (!streams) index.set(key, (streams = new Map<string, StreamView>()));
      streams.set(opened.connectionId, opened);
    }
  };
  const onClose = (closed: StreamView) => {
    for (const key of keys(closed)) {
      const streams = index.get(key);
      streams?.delete(closed.connectionId);
      if (streams?.size === 0) index.delete(key);
    }
  };
  events.on('stream-open', onOpen);
  events.on('stream-close', onClose);
  return () => {
    events.off('stream-open', onOpen);
    events.off('stream-close', onClose);
    index.clear();
  };
}
