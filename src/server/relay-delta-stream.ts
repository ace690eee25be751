/**
 * A delta ADS stream relayed to a real istiod (`serve --relay`), as relay-sotw-stream.ts
 * relays state of the world. What differs is that delta responses are changes, not states:
 *
 * - istiod's responses of a type are queued, and go down in order, each byte for byte (its
 *   system version, nonce and resource versions), as the policy lets them: a held type gets
 *   them all when released, none lost;
 * - the policy sees the type's whole state (every resource istiod has sent the stream and not
 *   removed), so that a fault building on what exists (a second listener on an existing
 *   address) finds it; a replacement sends that state, changed, under the mock's nonce;
 * - a proxy's answer to one of the mock's nonces goes up only for what it subscribes or
 *   unsubscribes, under istiod's last nonce the proxy got.
 */
import { SentRecord, type RequestOutcome } from '../core/stream-state.js';
import { Snapshot, TypeSnapshot, type NamedResource } from '../core/snapshot.js';
import { isDebugType } from '../xds/type-urls.js';
import { appendNonceField } from '../xds/wire.js';
import {
  decodeDeltaRequest,
  decodeDeltaResponse,
  encodeDeltaRequest,
  encodeDeltaResponseBody,
  type DeltaDiscoveryRequest,
} from '../xds/wire-delta.js';
import { contentVersion } from '../snapshot/resource-set.js';
import { DeltaSession, type DeltaTypeState } from '../protocol/delta-session.js';
import { nextNonce } from '../protocol/session.js';
import type { DebugBody } from './ads-stream.js';
import { encodeDeltaDebug } from './delta-stream.js';
import { logUpstream, RelayLink } from './relay-link.js';
import { StreamWriter, type BuiltResponse } from './stream-writer.js';

/** One of istiod's responses, as it came. */
interface Queued {
  message: Buffer;
  nonce: string;
  version: string;
  count: number;
  removed: number;
}

/** A delta session that keeps the books of a relayed stream: owed only what istiod sent. */
class RelayDeltaSession extends DeltaSession {
  /** The types with responses of istiod's waiting to go down. */
  private readonly pending = new Set<string>();

  override onRequest(request: DeltaDiscoveryRequest): RequestOutcome {
    const outcome = super.onRequest(request);
    // istiod answers requests, not the mock (the session's own rules owe EDS after CDS, too).
    for (const [typeUrl, state] of this.types) {
      state.scope = undefined;
      if (!this.pending.has(typeUrl)) this.owed.delete(typeUrl);
    }
    return outcome;
  }

  override onSnapshot(): void {
    // The mock's own resources are not what this stream serves.
  }

  /** istiod's responses of this type wait to go down (true), or none does any more. */
  upstreamPending(typeUrl: string, waiting: boolean): void {
    if (!waiting) {
      this.pending.delete(typeUrl);
      return;
    }
    this.pending.add(typeUrl);
    if (this.types.has(typeUrl)) this.owed.add(typeUrl);
  }

  /** A response went down: the books say so, as `next()` would have. */
  sentDown(state: DeltaTypeState, version: string, nonce: string, count: number): void {
    this.owed.delete(state.typeUrl);
    state.sent = new SentRecord(version, nonce, this.now(), count, undefined);
  }
}

export class RelayDeltaStream extends StreamWriter<DeltaDiscoveryRequest, RelayDeltaSession> {
  readonly protocol = 'delta';
  /** Per type, istiod's responses not yet sent down, oldest first. */
  private readonly queued = new Map<string, Queued[]>();
  /** Per type, every resource istiod has sent and not removed: what the policy sees. */
  private readonly state = new Map<string, TypeSnapshot>();
  private readonly link: RelayLink = new RelayLink(
    this.ctx.relay,
    'delta',
    {
      data: (bytes) => this.onUpstream(bytes),
      end: (code, message) => this.end(code, message),
      // Each type again, as a reconnecting proxy asks: its names, and what it has.
      resubscribe: (first) =>
        [...this.session.types]
          .filter(([typeUrl]) => typeUrl !== first)
          .map(([typeUrl, state]) =>
            encodeDeltaRequest({
              type_url: typeUrl,
              resource_names_subscribe: state.wildcard ? ['*'] : [...state.explicit],
              initial_resource_versions: Object.fromEntries(
                [...(this.state.get(typeUrl)?.resources.values() ?? [])].map((r) => [
                  r.name,
                  r.wireVersion ?? '',
                ]),
              ),
            }),
          ),
      upstream: (state, reason) => {
        logUpstream(this.ctx.log, this.connectionId, state, reason);
        const view = this.view();
        if (view) this.ctx.events.emit('relay-upstream', view, state, reason);
      },
    },
    () => this.call.metadata,
  );
  private request: { bytes: Buffer; decoded: DeltaDiscoveryRequest } | undefined;

  protected newSession(): RelayDeltaSession {
    return new RelayDeltaSession(undefined, false, this.ctx.nackTextMax);
  }

  protected decode(bytes: Buffer): DeltaDiscoveryRequest {
    const decoded = decodeDeltaRequest(bytes);
    this.request = { bytes, decoded };
    return decoded;
  }

  protected encodeDebug(body: DebugBody): Buffer {
    return encodeDeltaDebug(body);
  }

  override snapshot(): Snapshot | undefined {
    return new Snapshot('', '', this.state, '');
  }

  protected override forward(outcome: RequestOutcome): void {
    const request = this.request;
    if (!request) return;
    const { bytes, decoded } = request;
    const { response_nonce: nonce, type_url: typeUrl } = decoded;
    if (this.link.forward(this.view(), outcome, { bytes, nonce, typeUrl })) {
      this.answerOurs(decoded);
    }
  }

  /** The proxy answered a response the mock made: only its subscription changes go up. */
  private answerOurs(request: DeltaDiscoveryRequest): void {
    const subscribe = request.resource_names_subscribe;
    const unsubscribe = request.resource_names_unsubscribe;
    if (subscribe.length === 0 && unsubscribe.length === 0) return;
    const delivered = this.link.delivered.get(request.type_url);
    this.link.write(
      encodeDeltaRequest({
        type_url: request.type_url,
        resource_names_subscribe: subscribe,
        resource_names_unsubscribe: unsubscribe,
        response_nonce: delivered?.nonce ?? '',
      }),
      request.type_url,
    );
  }

  private onUpstream(bytes: Buffer): void {
    if (this.isClosed) return;
    const response = decodeDeltaResponse(bytes);
    const { typeUrl } = response;
    if (isDebugType(typeUrl)) {
      this.call.write(bytes);
      return;
    }
    this.ctx.relay?.recorder?.record(this.session.proxy?.nodeId ?? '', 'delta', {
      typeUrl,
      version: response.systemVersion,
      nonce: response.nonce,
      resources: response.resources,
      removed: response.removed,
    });
    const sent = response.resources.map((r): NamedResource => {
      const resource: NamedResource = { ...r, version: contentVersion(r.value) };
      if (r.version !== '') resource.wireVersion = r.version;
      return resource;
    });
    const rewritten = this.ctx.relay?.transform?.(typeUrl, sent);
    const known = new Map(this.state.get(typeUrl)?.resources);
    for (const name of response.removed) known.delete(name);
    for (const r of rewritten ?? sent) known.set(r.name, r);
    this.state.set(typeUrl, new TypeSnapshot(typeUrl, response.systemVersion, known, ''));
    this.link.received.set(typeUrl, response.systemVersion);
    // Rewritten, it is encoded again, under istiod's versions and nonce all the same.
    const message = rewritten
      ? appendNonceField(
          encodeDeltaResponseBody({
            systemVersion: response.systemVersion,
            typeUrl,
            resources: rewritten,
            removed: response.removed,
            controlPlaneId: '',
          }),
          response.nonce,
        )
      : bytes;
    const queue = this.queued.get(typeUrl) ?? [];
    queue.push({
      message,
      nonce: response.nonce,
      version: response.systemVersion,
      count: response.resources.length,
      removed: response.removed.length,
    });
    this.queued.set(typeUrl, queue);
    this.session.upstreamPending(typeUrl, true);
    this.trigger = 'push';
    this.flush();
  }

  protected build(
    state: DeltaTypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): BuiltResponse | undefined {
    const { typeUrl } = state;
    const queue = this.queued.get(typeUrl) ?? [];
    const asIstiodSent = snapshot === this.state.get(typeUrl) && !reuseNonce;
    if (asIstiodSent) {
      const next = queue.shift();
      if (!next) return undefined;
      this.link.delivered.set(typeUrl, { nonce: next.nonce, version: next.version });
      this.session.sentDown(state, next.version, next.nonce, next.count);
      this.session.upstreamPending(typeUrl, queue.length > 0);
      const { message, version, nonce, count, removed } = next;
      return { message, version, nonce, count, removed, relayed: 'istiod' };
    }
    // A replacement: the type's state, changed, under a nonce of the mock's. What istiod sent
    // meanwhile is in that state, so its queued responses are not sent after it.
    queue.length = 0;
    this.session.upstreamPending(typeUrl, false);
    const nonce = nextNonce(state, reuseNonce, snapshot.version);
    this.link.made(nonce);
    const resources = [...snapshot.resources.values()];
    const body = encodeDeltaResponseBody({
      systemVersion: snapshot.version,
      typeUrl,
      resources,
      removed: [],
      controlPlaneId: '',
    });
    this.session.sentDown(state, snapshot.version, nonce, resources.length);
    return {
      message: appendNonceField(body, nonce),
      version: snapshot.version,
      nonce,
      count: resources.length,
      relayed: 'mock',
    };
  }

  protected override stopWriting(): void {
    super.stopWriting();
    this.link.close();
  }
}
