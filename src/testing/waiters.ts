/**
 * Awaiting protocol events on a mock istiod: an ACK or a NACK of a type (optionally from
 * one node, optionally of one version). Resolves at once when it already happened.
 */
import type { Nack } from '../core/stream-state.js';
import type { StreamView } from '../core/events.js';
import type { MockIstiod } from '../app/mock-istiod-api.js';
import { shortTypeName } from '../core/types/registry.js';

export interface AckFilter {
  /** Only this node id (default: any). */
  nodeId?: string;
  /** Only this version (default: the current version of the type). */
  version?: string;
  timeoutMs?: number;
}

export interface Acked {
  stream: StreamView;
  version: string;
}

export interface Nacked {
  stream: StreamView;
  nack: Nack;
}

function matchesNode(stream: StreamView, filter: AckFilter): boolean {
  return filter.nodeId === undefined || stream.proxy.nodeId === filter.nodeId;
}

function waitForEvent<T>(
  server: MockIstiod,
  what: string,
  timeoutMs: number,
  check: () => T | undefined,
): Promise<T> {
  const found = check();
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const listener = () => {
      const value = check();
      if (!value) return;
      cleanup();
      resolve(value);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      server.events.off('request', listener);
    };
    server.events.on('request', listener);
  });
}

/** Waits until a stream has ACKed `typeUrl` at the wanted version. */
export function waitForAck(
  server: MockIstiod,
  typeUrl: string,
  filter: AckFilter = {},
): Promise<Acked> {
  const timeoutMs = filter.timeoutMs ?? 10_000;
  const check = (): Acked | undefined => {
    const version = filter.version ?? server.snapshot().get(typeUrl).version;
    for (const stream of server.streams()) {
      const acked = stream.types.get(typeUrl)?.acked;
      if (matchesNode(stream, filter) && acked?.version === version) return { stream, version };
    }
    return undefined;
  };
  const what = `an ACK of ${shortTypeName(typeUrl)} version ${filter.version ?? '(current)'}`;
  return waitForEvent(server, what, timeoutMs, check);
}

/** Waits until a stream has NACKed `typeUrl` (optionally a given version). */
export function waitForNack(
  server: MockIstiod,
  typeUrl: string,
  filter: AckFilter = {},
): Promise<Nacked> {
  const timeoutMs = filter.timeoutMs ?? 10_000;
  const check = (): Nacked | undefined => {
    for (const stream of server.streams()) {
      const nack = stream.types.get(typeUrl)?.nack;
      if (
        nack &&
        matchesNode(stream, filter) &&
        (!filter.version || nack.version === filter.version)
      ) {
        return { stream, nack };
      }
    }
    return undefined;
  };
  return waitForEvent(server, `a NACK of ${shortTypeName(typeUrl)}`, timeoutMs, check);
}
