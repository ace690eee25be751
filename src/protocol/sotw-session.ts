/**
 * The state-of-the-world session of one ADS stream: a small, explicit state machine that
 * classifies each request (new subscription, reconnect, ACK, NACK, stale) and tracks which
 * types are owed a response. It never touches gRPC and never builds resources; the stream
 * glue (src/server/sotw-stream.ts) asks it what to send and tells it what was sent.
 *
 * Protocol rules: https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol
 * (sections "ACK/NACK and resource type instance version", "When to send an update",
 * "Resource hints" and "Knowing when a requested resource does not exist").
 */
import { isWildcardType } from '../core/types/registry.js';
import type { DiscoveryRequest } from '../xds/wire.js';
import { isDebugType } from '../xds/type-urls.js';
import type { Snapshot } from '../core/snapshot.js';
import type { Nack, RequestOutcome, Sent, TypeState } from '../core/stream-state.js';
import { BaseSession } from './session.js';

function sameNames(a: TypeState['names'], b: TypeState['names']): boolean {
  if (a === '*' || b === '*') return a === b;
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function requestedNames(typeUrl: string, names: readonly string[]): TypeState['names'] {
  if (names.includes('*')) return '*';
  if (names.length === 0 && isWildcardType(typeUrl)) return '*';
  return [...names].sort();
}

export class SotwSession extends BaseSession<TypeState> {
  onRequest(request: DiscoveryRequest): RequestOutcome {
    const stopped = this.admit(request.node, request.type_url);
    if (stopped) return stopped;
    const typeUrl = request.type_url;
    // istiod answers every debug request and starts no watch for it (its processRequest).
    if (isDebugType(typeUrl)) return { kind: 'debug', typeUrl, names: request.resource_names };
    const names = requestedNames(typeUrl, request.resource_names);
    const current = this.types.get(typeUrl);
    // istiod's ShouldRespond: a request without a nonce, or the first request of a type on this
    // stream whatever nonce it carries (a client reconnecting to a new control plane, or
    // istioctl, which sends one on its first request), is answered with the current set.
    if (request.response_nonce === '' || !current) {
      return this.subscribe(typeUrl, names, request.version_info);
    }
    if (!current.sent || current.sent.nonce !== request.response_nonce) {
      // A nonce other than the last one sent answers an older response: ignore it
      // (xDS protocol, "ACK/NACK and resource type instance version").
      return {
        kind: 'stale',
        typeUrl,
        nonce: request.response_nonce,
        expected: current.sent?.nonce,
      };
    }
    if (request.error_detail) return this.recordNack(current, request);
    if (!sameNames(current.names, names)) {
      current.names = names;
      this.owed.add(typeUrl);
      return { kind: 'resubscribe', typeUrl };
    }
    if (request.version_info !== current.sent.version) {
      return { kind: 'repeat', typeUrl, version: request.version_info };
    }
    current.acked = { version: current.sent.version, nonce: current.sent.nonce, at: this.now() };
    current.nack = undefined;
    return { kind: 'ack', typeUrl, version: current.sent.version, nonce: current.sent.nonce };
  }

  private subscribe(typeUrl: string, names: TypeState['names'], version: string): RequestOutcome {
    const existing = this.types.get(typeUrl);
    if (existing) existing.names = names;
    else
      this.types.set(typeUrl, {
        typeUrl,
        names,
        sent: undefined,
        acked: undefined,
        nack: undefined,
      });
    this.owed.add(typeUrl);
    // Envoy keeps `version_info` across reconnects and clears nonces: a nonce-less request
    // with a version is a proxy that already runs that version from an earlier stream.
    if (version !== '') return { kind: 'reconnect', typeUrl, version };
    return { kind: 'subscribe', typeUrl };
  }

  private recordNack(state: TypeState, request: DiscoveryRequest): RequestOutcome {
    const sent = state.sent as Sent;
    const nack: Nack = {
      version: sent.version,
      nonce: sent.nonce,
      keptVersion: request.version_info,
      code: request.error_detail?.code ?? 0,
      message: request.error_detail?.message ?? '',
      at: this.now(),
    };
    state.nack = nack;
    // The rejected push is not sent again: only a new version of this type is.
    return { kind: 'nack', typeUrl: state.typeUrl, nack };
  }

  /** Marks subscribed types whose version differs from what was last sent as owed. */
  onSnapshot(snapshot: Snapshot): void {
    for (const state of this.types.values()) {
      if (state.sent && state.sent.version !== snapshot.get(state.typeUrl).version) {
        this.owed.add(state.typeUrl);
      }
    }
  }

  recordSent(typeUrl: string, version: string, nonce: string, count: number): void {
    const state = this.types.get(typeUrl);
    if (!state) return;
    state.sent = { version, nonce, at: this.now(), count };
    this.owed.delete(typeUrl);
  }
}
