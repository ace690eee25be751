/**
 * A state-of-the-world ADS stream relayed to a real istiod (`serve --relay`): each proxy's
 * stream gets its own upstream stream, opened with the proxy's first request, so istiod
 * generates that proxy's own configuration. Requests go up as they came. Responses come down
 * through the mock's response policy, so every fault applies to istiod's configuration:
 *
 * - a response the policy lets through is written as istiod sent it, byte for byte: the proxy
 *   sees istiod's versions and nonces;
 * - held or delayed, the type stays owed and gets istiod's latest response when it goes;
 * - replaced (a NACK-provoking config, a stale response), the mock writes its own response,
 *   with a nonce of its own; the proxy's ACK or NACK of it never reaches istiod as such: it
 *   goes up only when it changes the names asked, as an ACK of istiod's last response
 *   delivered;
 * - a response sent again (a `push`) goes as a copy under a nonce of the mock's, since istiod
 *   has sent that nonce once.
 *
 * The session keeps the books (what was asked, sent, ACKed, NACKed) for syncz, the journal
 * and the waits, but decides nothing: only istiod's responses make a type owed.
 */
import type { RequestOutcome, TypeState } from '../core/stream-state.js';
import { Snapshot, TypeSnapshot, type NamedResource } from '../core/snapshot.js';
import { isDebugType } from '../xds/type-urls.js';
import {
  appendNonceField,
  decodeDiscoveryRequest,
  decodeDiscoveryResponse,
  encodeDiscoveryRequest,
  encodeResponseBody,
  type DiscoveryRequest,
} from '../xds/wire.js';
import { firstStringField } from '../xds/first-string.js';
import { contentVersion } from '../snapshot/resource-set.js';
import { SotwSession } from '../protocol/sotw-session.js';
import { nextNonce } from '../protocol/session.js';
import type { DebugBody } from './ads-stream.js';
import { logUpstream, RelayLink } from './relay-link.js';
import { StreamWriter, type BuiltResponse } from './stream-writer.js';

/** istiod's latest response of one type, as it came and as the policy sees it. */
interface Upstream {
  message: Buffer;
  nonce: string;
  snapshot: TypeSnapshot;
}

/** A session that keeps the books of a relayed stream: owed only what istiod sent. */
class RelaySotwSession extends SotwSession {
  override onRequest(request: DiscoveryRequest): RequestOutcome {
    const outcome = super.onRequest(request);
    // istiod answers requests, not the mock.
    this.owed.delete(request.type_url);
    return outcome;
  }

  override onSnapshot(): void {
    // The mock's own resources are not what this stream serves.
  }

  /** istiod sent a response of this type: it is owed to the proxy. */
  upstreamSent(typeUrl: string): void {
    if (this.types.has(typeUrl)) this.owed.add(typeUrl);
  }
}

export class RelaySotwStream extends StreamWriter<DiscoveryRequest, RelaySotwSession> {
  readonly protocol = 'sotw';
  private readonly latest = new Map<string, Upstream>();
  private readonly link: RelayLink = new RelayLink(
    this.ctx.relay,
    'sotw',
    {
      data: (bytes) => this.onUpstream(bytes),
      end: (code, message) => this.end(code, message),
      // Each type again, with the names last asked and the version the proxy runs.
      resubscribe: (first) =>
        [...this.session.types.keys()]
          .filter((typeUrl) => typeUrl !== first)
          .map((typeUrl) =>
            encodeDiscoveryRequest({
              type_url: typeUrl,
              resource_names: [...(this.askedUp.get(typeUrl) ?? [])],
              version_info: this.link.delivered.get(typeUrl)?.version ?? '',
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
  /** Per type, the names last sent up. */
  private readonly askedUp = new Map<string, readonly string[]>();
  private request: { bytes: Buffer; decoded: DiscoveryRequest } | undefined;

  protected newSession(): RelaySotwSession {
    return new RelaySotwSession(undefined, this.ctx.nackTextMax);
  }

  protected decode(bytes: Buffer): DiscoveryRequest {
    const decoded = decodeDiscoveryRequest(bytes);
    this.request = { bytes, decoded };
    return decoded;
  }

  protected encodeDebug(debug: DebugBody): Buffer {
    return encodeResponseBody(debug.version, debug.typeUrl, debug.resources, debug.identifier);
  }

  /** What this stream serves: istiod's latest response of each type. */
  override snapshot(): Snapshot | undefined {
    const types = new Map([...this.latest].map(([typeUrl, up]) => [typeUrl, up.snapshot]));
    return new Snapshot('', '', types, '');
  }

  protected override forward(outcome: RequestOutcome): void {
    const request = this.request;
    if (!request) return;
    const { bytes, decoded } = request;
    const { response_nonce: nonce, type_url: typeUrl } = decoded;
    if (this.link.forward(this.view(), outcome, { bytes, nonce, typeUrl })) {
      this.answerOurs(decoded);
    } else this.askedUp.set(typeUrl, decoded.resource_names);
  }

  /**
   * The proxy answered a response the mock made: istiod never sent that nonce. Only a change
   * of the names asked goes up, as an ACK of istiod's last response the proxy got.
   */
  private answerOurs(request: DiscoveryRequest): void {
    const typeUrl = request.type_url;
    const delivered = this.link.delivered.get(typeUrl);
    const asked = this.askedUp.get(typeUrl) ?? [];
    const same =
      asked.length === request.resource_names.length &&
      asked.every((name, i) => name === request.resource_names[i]);
    if (!delivered || same) return;
    this.askedUp.set(typeUrl, request.resource_names);
    this.link.write(
      encodeDiscoveryRequest({
        type_url: typeUrl,
        resource_names: request.resource_names,
        version_info: delivered.version,
        response_nonce: delivered.nonce,
      }),
      typeUrl,
    );
  }

  private onUpstream(bytes: Buffer): void {
    if (this.isClosed) return;
    const response = decodeDiscoveryResponse(bytes);
    const typeUrl = response.type_url;
    // istiod's debug answers go down as they are: they describe istiod.
    if (isDebugType(typeUrl)) {
      this.call.write(bytes);
      return;
    }
    const node = this.session.proxy?.nodeId ?? '';
    this.ctx.relay?.recorder?.record(node, 'sotw', {
      typeUrl,
      version: response.version_info,
      nonce: response.nonce,
      resources: response.resources,
    });
    const named = response.resources.map((packed): NamedResource => {
      const name = firstStringField(packed.value);
      return { ...packed, name, version: contentVersion(packed.value) };
    });
    const rewritten = this.ctx.relay?.transform?.(typeUrl, named);
    const resources = new Map((rewritten ?? named).map((r) => [r.name, r]));
    const snapshot = new TypeSnapshot(typeUrl, response.version_info, resources, '');
    this.link.received.set(typeUrl, response.version_info);
    // Rewritten, it is encoded again, under istiod's version and nonce all the same.
    const message = rewritten ? appendNonceField(snapshot.body(), response.nonce) : bytes;
    this.latest.set(typeUrl, { message, nonce: response.nonce, snapshot });
    this.session.upstreamSent(typeUrl);
    this.trigger = 'push';
    this.flush();
  }

  protected build(state: TypeState, snapshot: TypeSnapshot, reuseNonce: boolean): BuiltResponse {
    const { typeUrl } = state;
    const up = this.latest.get(typeUrl);
    const count = snapshot.resources.size;
    const asIstiodSent =
      up !== undefined &&
      snapshot === up.snapshot &&
      !reuseNonce &&
      this.link.delivered.get(typeUrl)?.nonce !== up.nonce;
    if (asIstiodSent) {
      this.link.delivered.set(typeUrl, { nonce: up.nonce, version: snapshot.version });
      this.session.recordSent(typeUrl, snapshot.version, up.nonce, count, snapshot.resources);
      const { message } = up;
      return { message, version: snapshot.version, nonce: up.nonce, count, relayed: 'istiod' };
    }
    const nonce = nextNonce(state, reuseNonce, snapshot.version);
    this.link.made(nonce);
    const message = appendNonceField(snapshot.body(), nonce);
    this.session.recordSent(typeUrl, snapshot.version, nonce, count, snapshot.resources);
    return { message, version: snapshot.version, nonce, count, relayed: 'mock' };
  }

  protected override stopWriting(): void {
    super.stopWriting();
    this.link.close();
  }
}
