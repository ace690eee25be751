/**
 * The server-level operations faults (and the control API) need, over the streams a mock
 * istiod tracks — state of the world and delta alike: push the current version again,
 * resync after a fault that replaced responses, end streams, and take the xDS port down and
 * up again. The port's transitions run one after another, so a flapping fault and a removal
 * racing it cannot interleave a close and a bind.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AdsServer } from '../server/ads-server.js';
import type { AdsStream } from '../server/ads-stream.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { Endpoint } from '../core/endpoint.js';
import type { Snapshot } from '../core/snapshot.js';
import { matchesGlob } from '../util/glob.js';
import type { FaultHost, StreamSelector } from '../faults/model.js';

export const DOWN_MESSAGE = 'mock istiod is down';

export interface HostInternals {
  ads(): AdsServer;
  streams(): Iterable<AdsStream>;
  events: ServerEventEmitter;
  snapshot(): Snapshot;
  /** Where the xDS port was bound (after start). */
  endpoint(): Endpoint;
  /** Whether the server is running (started and not closed). */
  running(): boolean;
  log: Logger;
}

export function createFaultHost(internals: HostInternals): FaultHost {
  const { events, log } = internals;
  let transitions: Promise<void> = Promise.resolve();
  const transition = (step: () => Promise<void>): Promise<void> => {
    const next = transitions.then(step);
    transitions = next.catch(() => undefined);
    return next;
  };
  const select = (selector: StreamSelector): AdsStream[] =>
    [...internals.streams()].filter((stream) => {
      const view = stream.view();
      if (!view) return false;
      if (selector.connectionId !== undefined && view.connectionId !== selector.connectionId)
        return false;
      return matchesGlob(selector.node, view.proxy.nodeId);
    });
  const views = (): StreamView[] => [...internals.streams()].flatMap((s) => s.view() ?? []);

  return {
    events,
    streams: views,
    snapshot: () => internals.snapshot(),
    get serving() {
      return internals.running() && internals.ads().listening;
    },
    push(selector = {}) {
      const chosen = select(selector);
      for (const stream of chosen) stream.resend(selector.types);
      return chosen.length;
    },
    resync() {
      for (const stream of internals.streams()) stream.onSnapshot();
    },
    disconnect(selector, code, message) {
      const chosen = select(selector);
      for (const stream of chosen) stream.end(code, message);
      return chosen.length;
    },
    down: () =>
      transition(async () => {
        const ads = internals.ads();
        if (!internals.running() || !ads.listening) return;
        await ads.close(grpc.status.UNAVAILABLE, DOWN_MESSAGE);
        events.emit('state');
        log.warn({ xds: internals.endpoint() }, 'xDS port closed: connections are refused (down)');
      }),
    up: () =>
      transition(async () => {
        const ads = internals.ads();
        if (!internals.running() || ads.listening) return;
        await ads.listen(internals.endpoint());
        events.emit('state');
        log.info({ xds: internals.endpoint() }, 'xDS port open again (up)');
      }),
  };
}
