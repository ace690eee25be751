/**
 * The control endpoints of the core: withhold / release responses and read the state.
 */
import type { StreamView } from '../core/events.js';
import type { Route } from './router.js';
import type { Controllable } from './target.js';
import { READY_ANSWER, RELEASE_ANSWER, STATE_ANSWER, WITHHOLD_ANSWER } from './api-schemas.js';

export function describeStream(stream: StreamView) {
  return {
    connectionId: stream.connectionId,
    nodeId: stream.proxy.nodeId,
    peer: stream.peer,
    connectedAt: stream.connectedAt.toISOString(),
    types: [...stream.types.values()].map((t) => ({
      typeUrl: t.typeUrl,
      sent: t.sent?.version,
      acked: t.acked?.version,
      nack: t.nack ? { version: t.nack.version, message: t.nack.message } : undefined,
    })),
  };
}

export function controlRoutes(target: Controllable): Route[] {
  return [
    {
      method: 'POST',
      path: '/control/release',
      summary: 'let withheld responses go',
      answer: RELEASE_ANSWER,
      handle: () => ({
        status: 200,
        body: { released: target.release(), withheld: target.withheld },
      }),
    },
    {
      method: 'POST',
      path: '/control/withhold',
      summary: 'hold every response until released',
      answer: WITHHOLD_ANSWER,
      handle: () => {
        target.withhold();
        return { status: 200, body: { withheld: target.withheld } };
      },
    },
    {
      method: 'GET',
      path: '/control/state',
      summary: 'whether responses are withheld, and every stream with its per-type state',
      answer: STATE_ANSWER,
      handle: () => ({
        status: 200,
        body: { withheld: target.withheld, streams: target.streams().map(describeStream) },
      }),
    },
    {
      method: 'GET',
      path: '/ready',
      summary: 'readiness of the mock itself',
      answer: READY_ANSWER,
      handle: () => ({ status: 200, body: { ready: true } }),
    },
  ];
}
