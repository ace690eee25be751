/**
 * Awaiting protocol events on a mock istiod in a test: an ACK of a type (the control
 * operation `waitForAck`'s one implementation, asked for an ACK only), or a NACK of it. Both
 * resolve at once when it already happened; a node filter is a glob, as everywhere; a wait
 * that runs out throws `MockIstiodError('WAIT_TIMEOUT')` saying what it waited for.
 */
import type { AckAwaited } from '../api/answers.js';
import { refusedError } from '../api/methods.js';
import { Refusal } from '../api/refusal.js';
import type { Nack } from '../core/stream-state.js';
import type { ServerEventEmitter, StreamView } from '../core/events.js';
import type { MockIstiod } from '../app/mock-istiod-api.js';
import { shortTypeName } from '../core/types/registry.js';
import { targetOf } from '../target/operation-target.js';
import { MockIstiodError } from '../util/errors.js';
import { matchesGlob } from '../util/glob.js';

export interface AckFilter {
  /** Only nodes whose id matches this glob (`sidecar~*~orders-*`; default: any). */
  node?: string;
  /** Only this version (default: the current version of the type in the stream's set). */
  version?: string;
  timeoutMs?: number;
}

/** An ACK, as the control operation `waitForAck` answers it. */
export type Acked = AckAwaited & { result: 'ack' };

export interface Nacked {
  stream: StreamView;
  nack: Nack;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Waits until a stream has ACKed `typeUrl` at the wanted version (a NACK does not end it). */
export async function waitForAck(
  server: MockIstiod,
  typeUrl: string,
  filter: AckFilter = {},
): Promise<Acked> {
  const answer = await targetOf(server).waitForAck({
    typeUrl,
    node: filter.node,
    version: filter.version,
    timeoutMs: filter.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ackOnly: true,
  });
  if (!(answer instanceof Refusal)) return answer as Acked;
  // A wait that ran out is WAIT_TIMEOUT, as a control client's; a close, CLOSED.
  if (answer.status === 408) throw refusedError(answer, 'waitForAck');
  throw new MockIstiodError('CLOSED', answer.error);
}

/** Waits until a stream has NACKed `typeUrl` (optionally a given version). */
export function waitForNack(
  server: MockIstiod,
  typeUrl: string,
  filter: AckFilter = {},
): Promise<Nacked> {
  const timeoutMs = filter.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const check = (): Nacked | undefined => {
    for (const stream of server.streams()) {
      const nack = stream.types.get(typeUrl)?.nack;
      if (
        nack &&
        matchesGlob(filter.node, stream.proxy.nodeId) &&
        (!filter.version || nack.version === filter.version)
      ) {
        return { stream, nack };
      }
    }
    return undefined;
  };
  const what = `a NACK of ${shortTypeName(typeUrl)}${filter.node ? ` from ${filter.node}` : ''}`;
  return untilRequest(server.events, what, timeoutMs, check);
}

/**
 * `check()`'s first value: at once, or after a request (every protocol event follows one),
 * or `WAIT_TIMEOUT` naming `what` after `timeoutMs`.
 */
export function untilRequest<T>(
  events: Pick<ServerEventEmitter, 'on' | 'off'>,
  what: string,
  timeoutMs: number,
  check: () => T | undefined,
): Promise<T> {
  const found = check();
  if (found !== undefined) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const listener = () => {
      const value = check();
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const timer = setTimeout(() => {
      cleanup();
      const message = `timed out after ${timeoutMs} ms waiting for ${what}`;
      reject(new MockIstiodError('WAIT_TIMEOUT', message, { details: { lastValue: undefined } }));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      events.off('request', listener);
    };
    events.on('request', listener);
  });
}
