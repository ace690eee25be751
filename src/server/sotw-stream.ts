/**
 * One state-of-the-world ADS stream: decodes requests, lets the session classify them,
 * and writes what the session owes, through the gate, respecting `write()` backpressure.
 * A slow reader does not queue versions: while it cannot take more, the type just stays
 * owed and gets whatever version is current when the stream drains.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { SotwSession, type RequestOutcome, type TypeState } from '../protocol/sotw-session.js';
import type { TypeSnapshot } from '../snapshot/snapshot.js';
import type { SnapshotStore } from '../snapshot/store.js';
import { shortTypeName } from '../xds/type-urls.js';
import { decodeDiscoveryRequest, encodeNonceField, type DiscoveryRequest } from '../xds/wire.js';
import type { AdsCall } from './ads-service.js';
import type { ServerEventEmitter, StreamView } from './events.js';
import type { ResponseDecision, ResponsePolicy } from './policy.js';

export interface StreamContext {
  store: SnapshotStore;
  policy: ResponsePolicy;
  events: ServerEventEmitter;
  log: Logger;
  /** istiod's connection id: `<pod>.<namespace>-<counter>`. */
  connectionId(proxyId: string): string;
  register(stream: SotwStream): void;
  unregister(stream: SotwStream): void;
}

export class SotwStream {
  readonly session = new SotwSession();
  readonly connectedAt = new Date();
  readonly peer: string;
  connectionId = '';
  private flushing = false;
  private closed = false;
  private responsesSent = 0;
  /** Types whose response waits out a delay decided by the policy. */
  private readonly delays = new Map<string, NodeJS.Timeout>();
  /** Types whose delay has run out: sent next without asking the policy again. */
  private readonly bypass = new Set<string>();

  constructor(
    private readonly call: AdsCall,
    private readonly ctx: StreamContext,
  ) {
    this.peer = call.getPeer();
    call.on('data', (bytes: Buffer) => this.onData(bytes));
    call.on('end', () => this.finish('client closed the stream'));
    call.on('cancelled', () => this.finish('client cancelled the stream'));
    call.on('error', () => this.finish('stream error'));
    call.on('close', () => this.finish('stream closed'));
  }

  /** The read-only view handed to listeners; undefined until the node was accepted. */
  view(): StreamView | undefined {
    const proxy = this.session.proxy;
    if (!proxy) return undefined;
    return {
      connectionId: this.connectionId,
      peer: this.peer,
      connectedAt: this.connectedAt,
      proxy,
      types: this.session.types,
    };
  }

  /** Ends the stream with a gRPC status (OK ends it cleanly). */
  end(code: grpc.status, message: string): void {
    if (this.closed) return;
    if (code === grpc.status.OK) this.call.end();
    else this.call.emit('error', { code, details: message });
    this.finish(`ended by the server: ${grpc.status[code]} ${message}`);
  }

  private onData(bytes: Buffer): void {
    if (this.closed) return;
    let request: DiscoveryRequest;
    try {
      request = decodeDiscoveryRequest(bytes);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.end(grpc.status.INVALID_ARGUMENT, `malformed DiscoveryRequest: ${reason}`);
      return;
    }
    const wasNew = this.session.state.t === 'awaiting-node';
    const outcome = this.session.onRequest(request);
    if (outcome.kind === 'rejected') {
      this.ctx.log.warn({ peer: this.peer, err: outcome.message }, 'ADS: stream rejected');
      this.ctx.events.emit('stream-rejected', this.peer, outcome.message);
      this.end(grpc.status.INVALID_ARGUMENT, outcome.message);
      return;
    }
    const view = this.view() as StreamView;
    if (wasNew) this.open(view);
    this.report(view, outcome);
    if (this.session.hasOwed()) this.flush();
  }

  private open(view: StreamView): void {
    this.connectionId = this.ctx.connectionId(view.proxy.id);
    view.connectionId = this.connectionId;
    this.ctx.register(this);
    this.ctx.log.info(
      { conId: this.connectionId, node: view.proxy.nodeId, peer: this.peer },
      'ADS: new connection',
    );
    this.ctx.events.emit('stream-open', view);
  }

  private report(view: StreamView, outcome: RequestOutcome): void {
    const log = this.ctx.log;
    const type = 'typeUrl' in outcome ? shortTypeName(outcome.typeUrl) : '';
    const conId = this.connectionId;
    switch (outcome.kind) {
      case 'nack':
        log.warn(
          { conId, type, version: outcome.nack.version, code: outcome.nack.code },
          `ADS:${type}: ACK ERROR ${conId} ${outcome.nack.code}:${outcome.nack.message}`,
        );
        break;
      case 'stale':
        log.debug(
          { conId, type, nonce: outcome.nonce, expected: outcome.expected },
          `ADS:${type}: expired nonce`,
        );
        break;
      case 'ack':
        log.info(
          { conId, type, version: outcome.version },
          `ADS:${type}: ACK ${conId} ${outcome.version}`,
        );
        break;
      case 'reconnect':
        log.info({ conId, type, version: outcome.version }, `ADS:${type}: RECONNECT`);
        break;
      case 'rejected':
        return;
      default:
        if (!this.ctx.store.current().has(outcome.typeUrl)) {
          log.info(
            { conId, typeUrl: outcome.typeUrl },
            'ADS: no resources of this type; answering with an empty response',
          );
        }
        log.debug({ conId, type, kind: outcome.kind }, `ADS:${type}: REQ`);
    }
    this.ctx.events.emit('request', view, outcome);
  }

  /** Sends whatever the session owes and the gate allows; safe to call at any time. */
  flush(): void {
    if (this.flushing || this.closed || !this.session.proxy) return;
    this.flushing = true;
    this.drainOwed()
      .catch((err: unknown) =>
        this.ctx.log.error({ err, conId: this.connectionId }, 'ADS: write failed'),
      )
      .finally(() => {
        this.flushing = false;
      });
  }

  private async drainOwed(): Promise<void> {
    const skipped = new Set<string>();
    const allowed = (typeUrl: string) => !skipped.has(typeUrl) && !this.delays.has(typeUrl);
    for (;;) {
      if (this.closed) return;
      const state = this.session.nextOwed(allowed);
      const view = this.view();
      if (!state || !view) return;
      const current = this.ctx.store.current().get(state.typeUrl);
      const decision: ResponseDecision = this.bypass.delete(state.typeUrl)
        ? { kind: 'send' }
        : this.ctx.policy.decide({
            stream: view,
            protocol: 'sotw',
            typeUrl: state.typeUrl,
            snapshot: current,
            responsesSent: this.responsesSent,
          });
      switch (decision.kind) {
        case 'hold':
          skipped.add(state.typeUrl);
          continue;
        case 'delay':
          this.delay(state.typeUrl, decision.ms);
          continue;
        case 'end':
          this.end(decision.code, decision.message);
          return;
        case 'replace':
          await this.send(state, decision.snapshot, decision.reuseNonce === true);
          continue;
        case 'send':
          await this.send(state, current, false);
      }
    }
  }

  /** Holds a type for `ms`, then sends it without asking the policy again. */
  private delay(typeUrl: string, ms: number): void {
    const timer = setTimeout(() => {
      this.delays.delete(typeUrl);
      this.bypass.add(typeUrl);
      this.flush();
    }, ms);
    timer.unref();
    this.delays.set(typeUrl, timer);
  }

  private async send(state: TypeState, snapshot: TypeSnapshot, reuseNonce: boolean): Promise<void> {
    const names = state.names === '*' ? undefined : state.names;
    const nonce = reuseNonce && state.sent ? state.sent.nonce : randomUUID();
    const message = Buffer.concat([snapshot.body(names), encodeNonceField(nonce)]);
    const count = snapshot.count(names);
    this.session.recordSent(state.typeUrl, snapshot.version, nonce, count);
    this.responsesSent += 1;
    const writable = this.call.write(message);
    this.afterSend(state.typeUrl, snapshot.version, nonce, count, message.length);
    if (!writable) await this.waitForDrain();
  }

  private afterSend(typeUrl: string, version: string, nonce: string, count: number, bytes: number) {
    const view = this.view();
    if (!view) return;
    this.ctx.log.info(
      { conId: this.connectionId, type: shortTypeName(typeUrl), version, resources: count, nonce },
      `ADS:${shortTypeName(typeUrl)}: PUSH ${this.connectionId} resources:${count} size:${bytes}B`,
    );
    this.ctx.events.emit('response', view, { typeUrl, version, nonce, count, bytes });
  }

  private async waitForDrain(): Promise<void> {
    const ac = new AbortController();
    await Promise.race([
      once(this.call, 'drain', { signal: ac.signal }),
      once(this.call, 'close', { signal: ac.signal }),
    ]).catch(() => undefined);
    ac.abort();
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.delays.values()) clearTimeout(timer);
    this.delays.clear();
    const view = this.view();
    if (!view) return;
    this.ctx.unregister(this);
    this.ctx.log.info({ conId: this.connectionId, reason }, 'ADS: connection closed');
    this.ctx.events.emit('stream-close', view, reason);
  }
}
