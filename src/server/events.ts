/**
 * What the server reports as it works: one event per stream opened or closed, request
 * classified, and response written. The journal, metrics, logs and the test-suite library
 * listen here (the seam go-control-plane calls callbacks). Listeners must not throw.
 */
import { EventEmitter } from 'node:events';
import type { ProxyIdentity } from '../protocol/node.js';
import type { RequestOutcome } from '../protocol/sotw-session.js';
import type { TypeState } from '../protocol/session.js';

/** A read-only view of one connected stream. */
export interface StreamView {
  connectionId: string;
  peer: string;
  connectedAt: Date;
  protocol: 'sotw' | 'delta';
  proxy: ProxyIdentity;
  /** Per-type protocol state (sent, acked, last NACK). */
  types: ReadonlyMap<string, Readonly<TypeState>>;
}

export interface ResponseEvent {
  typeUrl: string;
  version: string;
  nonce: string;
  count: number;
  bytes: number;
}

export interface ServerEvents {
  'stream-open': [stream: StreamView];
  'stream-close': [stream: StreamView, reason: string];
  /** A stream rejected before it had an identity (bad node): no StreamView exists. */
  'stream-rejected': [peer: string, message: string];
  request: [stream: StreamView, outcome: RequestOutcome];
  response: [stream: StreamView, response: ResponseEvent];
}

export class ServerEventEmitter extends EventEmitter<ServerEvents> {}
