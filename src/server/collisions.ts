/**
 * Warns when connected proxies collide: two streams with the same node id, or the same pod
 * (`<pod>.<namespace>`) within the same `CLUSTER_ID`. istiod keys configuration and
 * endpoints by these; proxies that share them get each other's configuration (the course's
 * "multi-cluster config gets mixed" symptom, where two clusters share one CLUSTER_ID).
 */
import type { Logger } from 'pino';
import type { ServerEventEmitter, StreamView } from './events.js';

function keys(stream: StreamView): string[] {
  const { proxy } = stream;
  return [`node id "${proxy.nodeId}"`, `pod "${proxy.id}" in CLUSTER_ID "${proxy.clusterId}"`];
}

export function attachCollisionWarnings(
  events: ServerEventEmitter,
  streams: () => StreamView[],
  log: Logger,
): () => void {
  const onOpen = (opened: StreamView) => {
    for (const key of keys(opened)) {
      const others = streams().filter(
        (s) => s.connectionId !== opened.connectionId && keys(s).includes(key),
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
  events.on('stream-open', onOpen);
  return () => events.off('stream-open', onOpen);
}
