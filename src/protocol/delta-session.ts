/**
 * The delta session of one ADS stream (`DeltaAggregatedResources`): subscriptions change
 * by difference, every resource carries its own version, and removals travel only in
 * `removed_resources`. The session keeps, per type, what the proxy has by our books
 * (`known`: name → version), seeded on reconnect from `initial_resource_versions`, so that
 * nothing it already has is sent again.
 *
 * Rules: https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#incremental-xds
 */
import type { TypeSnapshot, Snapshot } from '../core/snapshot.js';
import type { NamedResource } from '../core/snapshot.js';
import { isWildcardType } from '../core/types/registry.js';
import type { DeltaDiscoveryRequest } from '../xds/wire-delta.js';
import { isDebugType } from '../xds/type-urls.js';
import { BaseSession, nextNonce } from './session.js';
import { type TypeState } from '../core/stream-state.js';
import type { RequestOutcome } from '../core/stream-state.js';

export interface DeltaTypeState extends TypeState {
  wildcard: boolean;
  explicit: Set<string>;
  /** What the proxy has, by our books: name → version. */
  known: Map<string, string>;
  /** The first request of a type is always answered, even with nothing. */
  answered: boolean;
}

/** What one delta response for a type carries. */
export interface DeltaDiff {
  resources: NamedResource[];
  removed: string[];
}

function namesOf(state: DeltaTypeState): TypeState['names'] {
  return state.wildcard ? '*' : [...state.explicit].sort();
}

export class DeltaSession extends BaseSession<DeltaTypeState> {
  onRequest(request: DeltaDiscoveryRequest): RequestOutcome {
    const stopped = this.admit(request.node, request.type_url);
    if (stopped) return stopped;
    const typeUrl = request.type_url;
    if (isDebugType(typeUrl)) {
      return { kind: 'debug', typeUrl, names: request.resource_names_subscribe };
    }
    const existing = this.types.get(typeUrl);
    const state = existing ?? this.create(typeUrl, request);
    const added = this.applySubscription(state, request, existing === undefined);
    // A request may ACK the last response and change the subscription at once.
    if (added) this.owed.add(typeUrl);
    // istiod's shouldRespondDelta: the first request of a type on this stream is answered
    // whatever nonce it carries (there is nothing it could be stale against); later nonces are
    // checked against the last one sent.
    const ackOutcome = existing ? this.classifyNonce(state, request) : undefined;
    if (ackOutcome) return ackOutcome;
    if (!existing) {
      this.owed.add(typeUrl);
      const known = state.known.size;
      return known > 0
        ? { kind: 'reconnect', typeUrl, version: '', known }
        : { kind: 'subscribe', typeUrl };
    }
    if (added) return { kind: 'resubscribe', typeUrl };
    return { kind: 'unsubscribe', typeUrl, names: request.resource_names_unsubscribe };
  }

  private create(typeUrl: string, request: DeltaDiscoveryRequest): DeltaTypeState {
    const state: DeltaTypeState = {
      typeUrl,
      names: [],
      sent: undefined,
      acked: undefined,
      nack: undefined,
      wildcard: false,
      explicit: new Set(),
      known: new Map(Object.entries(request.initial_resource_versions)),
      answered: false,
    };
    this.types.set(typeUrl, state);
    return state;
  }

  /** Applies subscribe / unsubscribe; true when something new is now subscribed. */
  private applySubscription(
    state: DeltaTypeState,
    request: DeltaDiscoveryRequest,
    first: boolean,
  ): boolean {
    let added = false;
    // Envoy's first CDS/LDS request subscribes to nothing explicitly: that means `*`.
    if (first && request.resource_names_subscribe.length === 0 && isWildcardType(state.typeUrl)) {
      state.wildcard = added = true;
    }
    for (const name of request.resource_names_subscribe) {
      if (name === '*') added = !state.wildcard || added;
      if (name === '*') state.wildcard = true;
      else if (!state.explicit.has(name)) {
        state.explicit.add(name);
        added = true;
      }
    }
    for (const name of request.resource_names_unsubscribe) {
      if (name === '*') state.wildcard = false;
      else state.explicit.delete(name);
      // The proxy drops an unsubscribed resource: it is no longer "known" to it.
      if (!state.wildcard) state.known.delete(name);
    }
    state.names = namesOf(state);
    return added;
  }

  private classifyNonce(
    state: DeltaTypeState,
    request: DeltaDiscoveryRequest,
  ): RequestOutcome | undefined {
    const nonce = request.response_nonce;
    if (nonce === '') return undefined;
    const typeUrl = state.typeUrl;
    if (!state.sent || state.sent.nonce !== nonce) {
      return { kind: 'stale', typeUrl, nonce, expected: state.sent?.nonce };
    }
    if (request.error_detail) {
      const nack = {
        version: state.sent.version,
        nonce,
        keptVersion: '',
        code: request.error_detail.code,
        message: request.error_detail.message,
        at: this.now(),
      };
      state.nack = nack;
      return { kind: 'nack', typeUrl, nack };
    }
    state.acked = { version: state.sent.version, nonce, at: this.now() };
    state.nack = undefined;
    return { kind: 'ack', typeUrl, version: state.sent.version, nonce };
  }

  /** What a response for `state` would carry now: changed or new resources, and removals. */
  diff(state: DeltaTypeState, snapshot: TypeSnapshot): DeltaDiff {
    const resources: NamedResource[] = [];
    const removed: string[] = [];
    const inScope = (name: string) => state.wildcard || state.explicit.has(name);
    // A wildcard subscription covers every resource of the snapshot, explicit names included
    // (those not in the snapshot have nothing to send): one pass over the snapshot, no copy.
    // This runs for every stream on every push.
    if (state.wildcard) {
      for (const [name, resource] of snapshot.resources) {
        if (state.known.get(name) !== resource.version) resources.push(resource);
      }
    } else {
      for (const name of state.explicit) {
        const resource = snapshot.resources.get(name);
        if (resource && state.known.get(name) !== resource.version) resources.push(resource);
      }
    }
    for (const name of state.known.keys()) {
      if (inScope(name) && !snapshot.resources.has(name)) removed.push(name);
    }
    return { resources, removed };
  }

  /** Builds the next response for a type, or undefined when the proxy is up to date. */
  next(state: DeltaTypeState, snapshot: TypeSnapshot, reuseNonce: boolean) {
    this.owed.delete(state.typeUrl);
    const diff = this.diff(state, snapshot);
    if (state.answered && diff.resources.length === 0 && diff.removed.length === 0)
      return undefined;
    const nonce = nextNonce(state, reuseNonce, snapshot.version);
    for (const r of diff.resources) state.known.set(r.name, r.version);
    for (const name of diff.removed) state.known.delete(name);
    state.answered = true;
    state.sent = { version: snapshot.version, nonce, at: this.now(), count: diff.resources.length };
    return { resources: diff.resources, removed: diff.removed, nonce };
  }

  onSnapshot(snapshot: Snapshot): void {
    for (const state of this.types.values()) {
      if (!state.answered || state.sent?.version === snapshot.get(state.typeUrl).version) continue;
      const diff = this.diff(state, snapshot.get(state.typeUrl));
      if (diff.resources.length > 0 || diff.removed.length > 0) this.owed.add(state.typeUrl);
    }
  }
}
