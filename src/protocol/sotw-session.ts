/**
 * The state-of-the-world session of one ADS stream: a small, explicit state machine that
 * classifies each request as istiod's `ShouldRespond` does (pkg/xds/server.go) and tracks
 * which types are owed a response. It never touches gRPC and never builds resources; the
 * stream glue (src/server/sotw-stream.ts) asks it what to send and tells it what was sent.
 *
 * A request is read in istiod's order (docs/conformance.md, the "SotW: …" rules):
 *
 * 1. with `error_detail`, it is a NACK, whatever nonce it carries: recorded, never answered;
 * 2. with no names for a type asked for by name (EDS, RDS, SDS, ECDS), it ends that watch:
 *    never answered, even as the type's first request;
 * 3. without a nonce, or as the first request of its type, it starts the watch afresh and is
 *    answered with the current set;
 * 4. with a nonce other than the last one sent, it is stale: ignored;
 * 5. otherwise it is an ACK, whatever its `version_info` says. It is answered only when it
 *    adds names (with the added names alone; CDS and LDS, sent whole, on any change), or
 *    when a new CDS watch asked for the next EDS ACK to be answered.
 *
 * With the `xds-spec` profile (core/profile.ts) the names are read as the xDS protocol
 * document says ("How the client specifies what resources to return"): every type, CDS and
 * LDS too, is sent only what it names; no names, or `*`, is a wildcard only while the stream
 * has never named a resource of the type (the legacy wildcard), and after that an empty list
 * unsubscribes; an ACK that only drops names is not answered ("Unsubscribing From
 * Resources"), and one that adds some is sent them (CDS and LDS: every name asked, "Grouping
 * Resources into Responses"); a change to the set is sent to a type asked by name only when
 * one of its names changed ("When to send an update"); after a CDS push the next EDS request is
 * answered, so that the clusters it changed finish warming ("Resource warming").
 */
import { isWildcardForIstiod, warmingDependents } from '../core/types/registry.js';
import type { DiscoveryRequest } from '../xds/wire.js';
import { isDebugType, LISTENER_TYPE } from '../xds/type-urls.js';
import { grpcWildcardListeners } from './grpc-listeners.js';
import type { NamedResource, Snapshot } from '../core/snapshot.js';
import {
  AckRecord,
  SentRecord,
  type Nack,
  type RequestOutcome,
  type Sent,
  type TypeState,
} from '../core/stream-state.js';
import { isProxylessGrpc } from '../core/identity.js';
import { BaseSession } from './session.js';

/**
 * The names a request asks for: `'*'` for a type sent whole, else each name once, sorted. A
 * proxyless gRPC client is sent only what it names, CDS and LDS too (istiod's grpc generator;
 * conformance: "SotW: CDS and LDS asked by name: proxyless gRPC …").
 */
function requestedNames(
  typeUrl: string,
  names: readonly string[],
  proxyless: boolean,
): TypeState['names'] {
  const byName = proxyless ? names.length > 0 : !isWildcardForIstiod(typeUrl);
  return byName ? [...new Set(names)].sort() : '*';
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether any name `state` watches differs (in content, or being) from what it was sent. */
function namesChanged(state: TypeState, now: ReadonlyMap<string, NamedResource>): boolean {
  const before = state.sent?.content as ReadonlyMap<string, NamedResource> | undefined;
  if (!before || state.names === '*') return true;
  return state.names.some((name) => before.get(name)?.version !== now.get(name)?.version);
}

/** The UUID istiod's nonces (and the mock's) end with, after the version they were sent at. */
const NONCE_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The version a NACK rejects: the one its nonce was sent with (a nonce begins with it), else,
 * for an empty or foreign nonce, the last one sent.
 */
function rejectedVersion(state: TypeState, nonce: string): string {
  if (state.sent && nonce === state.sent.nonce) return state.sent.version;
  const uuid = NONCE_UUID.exec(nonce);
  if (uuid && uuid.index > 0) return nonce.slice(0, uuid.index);
  return state.sent?.version ?? '';
}

export class SotwSession extends BaseSession<TypeState> {
  constructor(
    now?: () => number,
    nackTextMax?: number,
    /** The `xds-spec` profile's reading of names (see the file's comment). */
    private readonly spec = false,
  ) {
    super(now, nackTextMax);
  }

  /** xds-spec: the types this stream has named a resource of; their legacy wildcard is over. */
  private readonly named = new Set<string>();
  /**
   * The names each watched type's last request listed, as it listed them, to tell what the
   * next one changes. Kept as the request's own array: most ACKs repeat it name for name,
   * and then nothing needs a Set or a sort (ack()).
   */
  private readonly asked = new Map<string, readonly string[]>();
  /** Types whose next ACK is answered anyway (istiod's `AlwaysRespond`). */
  private readonly forced = new Set<string>();
  /** Types whose owed response carries only these names: those an ACK added. */
  private readonly addedOnly = new Map<string, readonly string[]>();

  onRequest(request: DiscoveryRequest): RequestOutcome {
    const before = this.weightOf(request.type_url);
    const outcome = this.classify(request);
    return this.settle(request.type_url, before) ?? outcome;
  }

  /** A watched type holds the names its last request listed, as listed, or one when none. */
  protected weightOf(typeUrl: string): number {
    return this.types.has(typeUrl) ? Math.max(1, this.asked.get(typeUrl)?.length ?? 0) : 0;
  }

  /**
   * An empty name list on a type asked for by name: the client no longer watches any of it
   * (istiod: EDS, RDS, SDS, ECDS; xds-spec: any type it has named a resource of).
   */
  private endsWatch(request: DiscoveryRequest): boolean {
    if (request.resource_names.length > 0) return false;
    return this.spec ? this.named.has(request.type_url) : !isWildcardForIstiod(request.type_url);
  }

  /** The names a request asks for, and (xds-spec) the end of its type's legacy wildcard. */
  private requested(typeUrl: string, names: readonly string[]): TypeState['names'] {
    if (!this.spec) return requestedNames(typeUrl, names, isProxylessGrpc(this.proxy));
    const wildcard = names.includes('*') || (names.length === 0 && !this.named.has(typeUrl));
    if (names.length > 0) this.named.add(typeUrl);
    return wildcard ? '*' : [...new Set(names)].sort();
  }

  private classify(request: DiscoveryRequest): RequestOutcome {
    const stopped = this.admit(request.node, request.type_url);
    if (stopped) return stopped;
    const typeUrl = request.type_url;
    // istiod answers every debug request and starts no watch for it (its processRequest).
    if (isDebugType(typeUrl)) return { kind: 'debug', typeUrl, names: request.resource_names };
    if (request.error_detail) return this.recordNack(request);
    if (this.endsWatch(request)) return this.endWatch(typeUrl);
    const current = this.types.get(typeUrl);
    // A request without a nonce, or the first request of a type on this stream whatever nonce
    // it carries (a client reconnecting to a new control plane, or istioctl, which sends one
    // on its first request), is answered with the current set.
    if (request.response_nonce === '' || !current) return this.watch(request);
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
    return this.ack(current, current.sent, request);
  }

  /**
   * The names the next response of a type carries; undefined: every resource. `listeners`
   * names the listeners of the set, for a proxyless client's LDS asked without names.
   */
  responseNames(
    state: TypeState,
    listeners?: ReadonlyMap<string, unknown>,
  ): readonly string[] | undefined {
    const names =
      this.addedOnly.get(state.typeUrl) ?? (state.names === '*' ? undefined : state.names);
    if (names || !listeners || state.typeUrl !== LISTENER_TYPE || this.spec) return names;
    return isProxylessGrpc(this.proxy) ? grpcWildcardListeners(listeners.keys()) : undefined;
  }

  /**
   * istiod's `NewWatchedResource`: the type's watch starts afresh (nothing sent, acked or
   * rejected yet) and is owed the current set; a new CDS watch makes the next EDS ACK answered.
   */
  private watch(request: DiscoveryRequest): RequestOutcome {
    const typeUrl = request.type_url;
    this.forget(typeUrl);
    this.types.set(typeUrl, {
      typeUrl,
      names: this.requested(typeUrl, request.resource_names),
      sent: undefined,
      acked: undefined,
      nack: undefined,
    });
    this.asked.set(typeUrl, request.resource_names);
    for (const dependent of warmingDependents(typeUrl)) {
      if (this.types.has(dependent)) this.forced.add(dependent);
    }
    this.owed.add(typeUrl);
    // Envoy keeps `version_info` across reconnects and clears nonces: a nonce-less request
    // with a version is a proxy that already runs that version from an earlier stream.
    if (request.version_info !== '') {
      return { kind: 'reconnect', typeUrl, version: request.version_info };
    }
    return { kind: 'subscribe', typeUrl };
  }

  /** An empty name list on EDS, RDS, SDS or ECDS: istiod drops the watch and says nothing. */
  private endWatch(typeUrl: string): RequestOutcome {
    const state = this.types.get(typeUrl);
    const names = state && state.names !== '*' ? [...state.names] : [];
    this.forget(typeUrl);
    return { kind: 'unsubscribe', typeUrl, names };
  }

  private forget(typeUrl: string): void {
    this.types.delete(typeUrl);
    this.asked.delete(typeUrl);
    this.forced.delete(typeUrl);
    this.addedOnly.delete(typeUrl);
    this.owed.delete(typeUrl);
  }

  /**
   * The nonce last sent, without an error: an ACK of it whatever `version_info` says (the
   * request Envoy repeats after a NACK, on the version it kept, is one too), which clears the
   * last NACK. The names it lists replace the watch's.
   */
  private ack(state: TypeState, sent: Sent, request: DiscoveryRequest): RequestOutcome {
    const { typeUrl } = state;
    state.acked = new AckRecord(request.version_info, sent.nonce, this.now());
    state.nack = undefined;
    const listed = this.asked.get(typeUrl) ?? [];
    this.asked.set(typeUrl, request.resource_names);
    const ack: RequestOutcome = {
      kind: 'ack',
      typeUrl,
      version: request.version_info,
      nonce: sent.nonce,
    };
    // istiod's "FORCE RESPONSE for warming": the whole set, to let clusters finish warming.
    const forced = this.forced.delete(typeUrl);
    if (forced) this.oweWhole(typeUrl);
    // The same names in the same order (a fleet's every first ACK): the watch is unchanged,
    // and so are its names, which were derived from the same list.
    if (sameList(listed, request.resource_names)) return ack;
    const proxyless = isProxylessGrpc(this.proxy);
    const previous = state.names;
    state.names = this.requested(typeUrl, request.resource_names);
    if (forced) return ack;
    const before = new Set(listed);
    const now = new Set(request.resource_names);
    const added = [...now].filter((name) => !before.has(name)).sort();
    const removed = [...before].filter((name) => !now.has(name)).sort();
    if (added.length === 0 && removed.length === 0) return ack;
    if (this.spec) return this.specChange(state, previous, added, removed);
    // A proxyless client is sent every name it watches, not only the added ones (istiod
    // narrows the answer to the added names for Envoy alone).
    if (isWildcardForIstiod(typeUrl) || (proxyless && added.length > 0)) {
      this.oweWhole(typeUrl);
      return { kind: 'resubscribe', typeUrl };
    }
    // Removed names need no answer: Envoy drops them itself.
    if (added.length === 0) return { kind: 'unsubscribe', typeUrl, names: removed };
    this.addedOnly.set(typeUrl, added);
    this.owed.add(typeUrl);
    return { kind: 'resubscribe', typeUrl };
  }

  /**
   * xds-spec: an ACK that changes the names. Added names are sent (CDS and LDS, and a
   * wildcard, whole: "Grouping Resources into Responses"), as is the narrowed set when a
   * wildcard gives way to names; names only dropped are not answered ("Unsubscribing From
   * Resources").
   */
  private specChange(
    state: TypeState,
    previous: TypeState['names'],
    added: readonly string[],
    removed: readonly string[],
  ): RequestOutcome {
    const { typeUrl } = state;
    const narrowed = previous === '*' && state.names !== '*';
    if (added.length === 0 && !narrowed)
      return { kind: 'unsubscribe', typeUrl, names: [...removed] };
    if (narrowed || state.names === '*' || isWildcardForIstiod(typeUrl)) this.oweWhole(typeUrl);
    else {
      this.addedOnly.set(typeUrl, added);
      this.owed.add(typeUrl);
    }
    return { kind: 'resubscribe', typeUrl };
  }

  /**
   * Any NACK, whatever its nonce (empty, stale, never sent): istiod reads `error_detail`
   * first, records the error in the type's watch and answers nothing; the names it lists are
   * not taken. A NACK of a type never asked for has no watch to be recorded in: ignored.
   */
  private recordNack(request: DiscoveryRequest): RequestOutcome {
    const typeUrl = request.type_url;
    const nonce = request.response_nonce;
    const state = this.types.get(typeUrl);
    if (!state) return { kind: 'stale', typeUrl, nonce, expected: undefined };
    const nack: Nack = {
      version: rejectedVersion(state, nonce),
      nonce,
      keptVersion: request.version_info,
      code: request.error_detail?.code ?? 0,
      message: this.nackText(request.error_detail?.message),
      at: new Date(this.now()),
    };
    state.nack = nack;
    // The rejected push is not sent again: only a new version of this type is.
    return { kind: 'nack', typeUrl, nack };
  }

  private oweWhole(typeUrl: string): void {
    this.addedOnly.delete(typeUrl);
    this.owed.add(typeUrl);
  }

  override owe(typeUrls?: readonly string[]): void {
    for (const typeUrl of this.types.keys()) {
      if (!typeUrls || typeUrls.includes(typeUrl)) this.oweWhole(typeUrl);
    }
  }

  /**
   * Marks subscribed types whose version differs from what was last sent as owed (or, for a
   * pinned version, whose resources do).
   */
  onSnapshot(snapshot: Snapshot): void {
    for (const state of this.types.values()) {
      if (!state.sent) continue;
      const current = snapshot.get(state.typeUrl);
      if (!current.differsFrom(state.sent)) continue;
      // xds-spec: a type asked by name is sent only when one of its names changed ("When to
      // send an update": only when the resources in the response have changed).
      if (this.spec && state.names !== '*' && !namesChanged(state, current.resources)) continue;
      this.oweWhole(state.typeUrl);
    }
  }

  recordSent(
    typeUrl: string,
    version: string,
    nonce: string,
    count: number,
    content?: unknown,
  ): void {
    const state = this.types.get(typeUrl);
    if (!state) return;
    // xds-spec: a CDS push leaves changed clusters warming until EDS answers them ("Resource
    // warming"), and other types keep their versions: the next EDS request is answered.
    if (this.spec && state.sent) {
      for (const dependent of warmingDependents(typeUrl)) {
        if (this.types.has(dependent)) this.forced.add(dependent);
      }
    }
    state.sent = new SentRecord(version, nonce, this.now(), count, content);
    this.addedOnly.delete(typeUrl);
    this.owed.delete(typeUrl);
  }
}
