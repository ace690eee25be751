/**
 * The delta session of one ADS stream (`DeltaAggregatedResources`), as istiod's delta server
 * keeps it (docs/conformance.md, the "Delta: …" rules; their cases are
 * test/conformance/cases/delta-*.ts):
 *
 * - A request is answered when it is a type's first, or when it changes the subscription;
 *   a NACK, a stale nonce, or a request that changes nothing is not, and a NACK's or a stale
 *   request's subscription changes are dropped.
 * - An answer to a request carries the names it subscribed (all subscribed, when it named
 *   none); CDS and LDS are sent every resource whatever the names, with the names asked for
 *   that do not exist in `removed_resources`. An EDS or RDS name that does not exist is sent
 *   as an empty resource: removals are for wildcard types only.
 * - Every answered CDS request is followed by EDS, every subscribed name.
 * - Resources carry no version, so a reconnect's `initial_resource_versions` saves nothing:
 *   its names are subscribed and sent again (with the `deltaResourceVersions` option, only
 *   what differs from them is).
 *
 * - A push at a new version (istiod's versioning, `versioning: 'push'`) sends every resource
 *   in scope again, changed or not, with nothing removed but what vanished from a wildcard
 *   type. With `versioning: 'per-type'`, a push sends what changed since the last response,
 *   by the session's own books (`known`: name → content version).
 *
 * With the `xds-spec` profile (core/profile.ts), as the xDS protocol document says:
 * - every type is sent what it subscribes, CDS and LDS too; a wildcard (`*`, or the legacy
 *   first request naming nothing) is any type's, and `*` can be subscribed and unsubscribed
 *   later ("How the client specifies what resources to return");
 * - a name with no resource, of any type, is answered in `removed_resources` ("Knowing When
 *   a Requested Resource Does Not Exist"), and so is a removed resource ("Deleting
 *   Resources");
 * - a stale nonce's subscription changes are taken ("the server must honor changes to the
 *   subscription state even if the nonce is stale");
 * - a name unsubscribed under a wildcard is answered, as a resource or a removal
 *   ("Unsubscribing from Resources", the one exception);
 * - a CDS response is followed by the EDS resources of the clusters it carried, and of no
 *   others: they warm until their endpoints come ("Resource warming"), and only what changed
 *   is sent ("Grouping Resources into Responses").
 */
import { bookVersion, emptyResource, type TypeSnapshot, type Snapshot } from '../core/snapshot.js';
import type { NamedResource } from '../core/snapshot.js';
import { isWildcardForIstiod } from '../core/types/registry.js';
import type { DeltaDiscoveryRequest } from '../xds/wire-delta.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, isDebugType } from '../xds/type-urls.js';
import { BaseSession, nextNonce } from './session.js';
import {
  AckRecord,
  SentRecord,
  type RequestOutcome,
  type Sent,
  type TypeState,
} from '../core/stream-state.js';

/**
 * What the next response of a type answers: the names a request subscribed, every name
 * subscribed (`'subscribed'`: a request that named none, or EDS after CDS), or, for a
 * reconnect with `deltaResourceVersions`, what the proxy lacks (`'changed'`, answered even
 * when it lacks nothing).
 */
export type DeltaScope = readonly string[] | 'subscribed' | 'changed';

export interface DeltaTypeState extends TypeState {
  /** Fixed by the first request (no names, or `*`), as istiod records it; shown as `*`. */
  wildcard: boolean;
  /** istiod's watched names: those subscribed; for CDS and LDS, those last sent. */
  explicit: Set<string>;
  /** What the proxy has, by our books: name → content version (never on the wire). */
  known: Map<string, string>;
  /** What the next response answers; undefined: a push, of what changed. */
  scope: DeltaScope | undefined;
}

/** What one delta response for a type carries. */
export interface DeltaDiff {
  resources: readonly NamedResource[];
  removed: string[];
}

function namesOf(state: DeltaTypeState): TypeState['names'] {
  return state.wildcard ? '*' : [...state.explicit].sort();
}

/** The names a request subscribes, its reconnect's names among them, without `*`. */
function subscribedBy(request: DeltaDiscoveryRequest): Set<string> {
  const names = new Set(request.resource_names_subscribe);
  for (const name in request.initial_resource_versions) names.add(name);
  names.delete('*');
  return names;
}

/** What an ACK subscribes: nothing (never written to). */
const NOTHING: ReadonlySet<string> = new Set();

/** How many names a reconnect says the proxy has (most requests: none, and no list made). */
function knownCount(request: DeltaDiscoveryRequest): number {
  const known = request.initial_resource_versions;
  for (const name in known) if (Object.hasOwn(known, name)) return Object.keys(known).length;
  return 0;
}

export class DeltaSession extends BaseSession<DeltaTypeState> {
  constructor(
    now?: () => number,
    /**
     * The `deltaResourceVersions` option: a reconnect's `initial_resource_versions` are what
     * the proxy has, and only what differs is sent (istiod sends everything again).
     */
    private readonly resourceVersions = false,
    nackTextMax?: number,
    /** The `xds-spec` profile's rules (see the file's comment). */
    private readonly spec = false,
  ) {
    super(now, nackTextMax);
  }

  /** xds-spec: clusters sent since the last EDS response, whose endpoints it carries again. */
  private readonly rewarm = new Set<string>();

  /**
   * Whether a type's answers and pushes cover every resource of the set: istiod's CDS and LDS,
   * whatever was asked; xds-spec: a wildcard subscription.
   */
  private whole(state: DeltaTypeState): boolean {
    return this.spec ? state.wildcard : isWildcardForIstiod(state.typeUrl);
  }

  /** What stands for a name with no resource: istiod's empty EDS or RDS resource, or a removal. */
  private filler(typeUrl: string, name: string): NamedResource | undefined {
    return this.spec ? undefined : emptyResource(typeUrl, name);
  }

  onRequest(request: DeltaDiscoveryRequest): RequestOutcome {
    // A request naming more than the limit would pass it whatever the stream holds: refused
    // before its names are stored, which is most of the work of a large request.
    const named = request.resource_names_subscribe.length + knownCount(request);
    if (named > this.maxSubscriptions)
      return this.refuseOver(`${named} resource names in one request`);
    const before = this.weightOf(request.type_url);
    const outcome = this.classify(request);
    return this.settle(request.type_url, before) ?? outcome;
  }

  /**
   * A type holds its watched names (a reconnect's among them), or one when none; for CDS and
   * LDS those are what was last sent (`next`), so a set larger than the limit needs it raised.
   */
  protected weightOf(typeUrl: string): number {
    const state = this.types.get(typeUrl);
    return state ? Math.max(1, state.explicit.size) : 0;
  }

  private classify(request: DeltaDiscoveryRequest): RequestOutcome {
    const stopped = this.admit(request.node, request.type_url);
    if (stopped) return stopped;
    const typeUrl = request.type_url;
    if (isDebugType(typeUrl)) {
      return { kind: 'debug', typeUrl, names: request.resource_names_subscribe };
    }
    const state = this.types.get(typeUrl);
    const nonce = request.response_nonce;
    // A NACK is recorded whatever response it names, and changes nothing else
    // (conformance: "a NACK naming an older response still records its error in syncz").
    // One of a type never requested answers nothing we sent: istiod has nowhere to record
    // it, and we ignore it as stale.
    if (request.error_detail && state) return this.recordNack(state, request);
    if (request.error_detail) return { kind: 'stale', typeUrl, nonce, expected: undefined };
    if (!state) return this.first(request);
    const sent = state.sent;
    const stale = nonce !== '' && nonce !== sent?.nonce;
    // istiod drops a stale request's subscription changes with it; xds-spec takes them.
    if (stale && !this.spec) return { kind: 'stale', typeUrl, nonce, expected: sent?.nonce };
    // A request may ACK the last response and change the subscription at once: both count.
    // Most name nothing (an ACK), and need no set of their own.
    const named = request.resource_names_subscribe.length > 0 || knownCount(request) > 0;
    const subscribed = named ? subscribedBy(request) : NOTHING;
    const changed = this.applySubscription(state, request, subscribed);
    if (changed) this.answer(state, this.scopeOf(state, request, subscribed));
    if (stale && !changed) return { kind: 'stale', typeUrl, nonce, expected: sent?.nonce };
    if (sent && nonce !== '' && !stale) return this.recordAck(state, sent);
    if (request.resource_names_subscribe.length > 0) return { kind: 'resubscribe', typeUrl };
    return { kind: 'unsubscribe', typeUrl, names: request.resource_names_unsubscribe };
  }

  /**
   * The first request of a type on this stream is answered whatever nonce it carries (there
   * is nothing it could be stale against).
   */
  private first(request: DeltaDiscoveryRequest): RequestOutcome {
    const typeUrl = request.type_url;
    const subscribe = request.resource_names_subscribe;
    const subscribed = subscribedBy(request);
    const state: DeltaTypeState = {
      typeUrl,
      names: [],
      sent: undefined,
      acked: undefined,
      nack: undefined,
      wildcard: subscribe.length === 0 || subscribe.includes('*'),
      // The request's own set: nothing else keeps it.
      explicit: subscribed,
      known: new Map(),
      scope: undefined,
    };
    state.names = namesOf(state);
    this.types.set(typeUrl, state);
    const known = knownCount(request);
    if (this.resourceVersions && known > 0) {
      state.known = new Map(Object.entries(request.initial_resource_versions));
      this.answer(state, 'changed');
    } else this.answer(state, this.scopeOf(state, request, subscribed));
    return known > 0
      ? { kind: 'reconnect', typeUrl, version: '', known }
      : { kind: 'subscribe', typeUrl };
  }

  /**
   * The scope of an answer to `request`, which subscribes `subscribed`: its own names, or, when
   * it neither subscribes nor unsubscribes a name (`*` aside), every name subscribed.
   * xds-spec: a request that subscribes `*` (or the legacy wildcard's first) is answered with
   * everything; otherwise with its names, and those it unsubscribed under a wildcard.
   */
  private scopeOf(
    state: DeltaTypeState,
    request: DeltaDiscoveryRequest,
    subscribed: ReadonlySet<string>,
  ): DeltaScope {
    const unsubscribed = request.resource_names_unsubscribe.filter((n) => n !== '*');
    const none = subscribed.size === 0 && unsubscribed.length === 0;
    if (!this.spec) return none ? 'subscribed' : [...subscribed];
    const all = request.resource_names_subscribe.includes('*') || (state.wildcard && none);
    return all ? 'subscribed' : [...subscribed, ...(state.wildcard ? unsubscribed : [])];
  }

  /**
   * Owes `state` an answer; after CDS, EDS too, every name subscribed, so that clusters
   * do not stay warming (istiod's forced EDS push; conformance: "a CDS request after EDS is
   * answered, then EDS is pushed in full").
   */
  private answer(state: DeltaTypeState, scope: DeltaScope): void {
    state.scope = scope;
    this.owed.add(state.typeUrl);
    const cds = state.typeUrl === CLUSTER_TYPE && !this.spec;
    const endpoints = cds ? this.types.get(ENDPOINT_TYPE) : undefined;
    if (endpoints) {
      endpoints.scope = 'subscribed';
      this.owed.add(ENDPOINT_TYPE);
    }
  }

  /**
   * Applies subscribe, reconnect names and unsubscribe; true when the subscription changed.
   * A `*` always counts as a change, as istiod never keeps it among the names.
   */
  private applySubscription(
    state: DeltaTypeState,
    request: DeltaDiscoveryRequest,
    subscribed: ReadonlySet<string>,
  ): boolean {
    let changed = request.resource_names_subscribe.includes('*');
    if (this.spec && changed) state.wildcard = true;
    if (this.spec && request.resource_names_unsubscribe.includes('*') && state.wildcard) {
      state.wildcard = false;
      changed = true;
    }
    for (const name of subscribed) {
      if (!state.explicit.has(name)) changed = true;
      state.explicit.add(name);
    }
    for (const name of request.resource_names_unsubscribe) {
      if (state.explicit.delete(name)) changed = true;
      // The proxy drops an unsubscribed resource: it is no longer "known" to it.
      state.known.delete(name);
    }
    state.names = namesOf(state);
    return changed;
  }

  private recordNack(state: DeltaTypeState, request: DeltaDiscoveryRequest): RequestOutcome {
    const nack = {
      version: state.sent?.version ?? '',
      nonce: request.response_nonce,
      keptVersion: '',
      code: request.error_detail?.code ?? 0,
      message: this.nackText(request.error_detail?.message),
      at: new Date(this.now()),
    };
    state.nack = nack;
    return { kind: 'nack', typeUrl: state.typeUrl, nack };
  }

  private recordAck(state: DeltaTypeState, sent: Sent): RequestOutcome {
    state.acked = new AckRecord(sent.version, sent.nonce, this.now());
    state.nack = undefined;
    return { kind: 'ack', typeUrl: state.typeUrl, version: sent.version, nonce: sent.nonce };
  }

  /** The answer to a request: see the file's comment. */
  answerOf(
    state: DeltaTypeState,
    snapshot: TypeSnapshot,
    scope: Exclude<DeltaScope, 'changed'>,
  ): DeltaDiff {
    const names = scope === 'subscribed' ? state.explicit : scope;
    if (this.whole(state) && (scope === 'subscribed' || !this.spec)) {
      const removed: string[] = [];
      for (const name of names) if (!snapshot.resources.has(name)) removed.push(name);
      return { resources: snapshot.all, removed };
    }
    const resources: NamedResource[] = [];
    const removed: string[] = [];
    for (const name of names) {
      const resource = snapshot.resources.get(name) ?? this.filler(state.typeUrl, name);
      if (resource) resources.push(resource);
      else removed.push(name);
    }
    return { resources, removed };
  }

  /**
   * What a push sends: changed or new resources (every one in scope when `whole`: istiod's
   * full push), and removals (of wildcard types).
   */
  diff(state: DeltaTypeState, snapshot: TypeSnapshot, whole = false): DeltaDiff {
    const resources: NamedResource[] = [];
    const removed: string[] = [];
    const owed = (name: string, resource: NamedResource) => {
      if (whole) return true;
      const known = state.known.get(name);
      // A reconnect's initial_resource_versions name a pinned resource by its pinned version.
      const pinnedMatch = resource.wireVersion !== undefined && known === resource.wireVersion;
      return known !== bookVersion(resource) && !pinnedMatch;
    };
    // One pass over the snapshot, no copy: this runs for every stream on every push.
    if (this.whole(state)) {
      for (const [name, resource] of snapshot.resources) {
        if (owed(name, resource)) resources.push(resource);
      }
      for (const name of state.known.keys()) {
        if (!snapshot.resources.has(name)) removed.push(name);
      }
      return { resources, removed };
    }
    for (const name of state.explicit) {
      const resource = snapshot.resources.get(name) ?? this.filler(state.typeUrl, name);
      if (resource && owed(name, resource)) resources.push(resource);
      else if (!resource && state.known.has(name)) removed.push(name);
    }
    return { resources, removed };
  }

  /** Builds the next response for a type, or undefined when there is nothing to send. */
  next(state: DeltaTypeState, snapshot: TypeSnapshot, reuseNonce: boolean) {
    this.owed.delete(state.typeUrl);
    const scope = state.scope;
    state.scope = undefined;
    // An answer to a request sends its whole scope; a push, or a versioned reconnect, a diff.
    const whole = scope === 'changed' ? undefined : scope;
    const found = whole
      ? this.answerOf(state, snapshot, whole)
      : this.diff(state, snapshot, isNewPush(state, snapshot));
    const diff = state.typeUrl === ENDPOINT_TYPE ? this.withRewarmed(found, snapshot) : found;
    // CDS and LDS answer every request, even with nothing; EDS and RDS with no names do not.
    const answersAnyway = scope === 'changed' || (whole !== undefined && this.whole(state));
    if (!answersAnyway && diff.resources.length === 0 && diff.removed.length === 0)
      return undefined;
    const nonce = nextNonce(state, reuseNonce, snapshot.version);
    const wildcardBooks = !this.spec && isWildcardForIstiod(state.typeUrl);
    const { known } = state;
    // An answer of a wildcard type: the proxy has what it was sent, and nothing else.
    if (wildcardBooks && whole && known.size > 0) known.clear();
    for (const r of diff.resources) known.set(r.name, bookVersion(r));
    for (const name of diff.removed) known.delete(name);
    if (wildcardBooks) {
      // What was sent is what is watched, as istiod records it.
      const before = this.weightOf(state.typeUrl);
      const { explicit } = state;
      if (explicit.size > 0) explicit.clear();
      for (const name of known.keys()) explicit.add(name);
      state.names = namesOf(state);
      this.recount(state.typeUrl, before);
    }
    if (this.spec && state.typeUrl === CLUSTER_TYPE) this.warm(diff.resources);
    const count = diff.resources.length;
    state.sent = new SentRecord(snapshot.version, nonce, this.now(), count, snapshot.resources);
    return { resources: diff.resources, removed: diff.removed, nonce };
  }

  /**
   * xds-spec: the clusters a CDS response carried warm until EDS answers them ("Resource
   * warming": the management server is expected to provide EDS during warming), so the
   * endpoints of those the stream watches are owed again, and only those.
   */
  private warm(clusters: readonly NamedResource[]): void {
    const endpoints = this.types.get(ENDPOINT_TYPE);
    if (!endpoints) return;
    for (const { name } of clusters) {
      if (endpoints.wildcard || endpoints.explicit.has(name)) this.rewarm.add(name);
    }
    if (this.rewarm.size > 0) this.owed.add(ENDPOINT_TYPE);
  }

  /** xds-spec: adds to an EDS response the endpoints of clusters sent since (see `warm`). */
  private withRewarmed(diff: DeltaDiff, snapshot: TypeSnapshot): DeltaDiff {
    if (this.rewarm.size === 0) return diff;
    const sending = new Set(diff.resources.map((r) => r.name));
    const resources = [...diff.resources];
    for (const name of this.rewarm) {
      const resource = snapshot.resources.get(name);
      if (resource && !sending.has(name)) resources.push(resource);
    }
    this.rewarm.clear();
    return { resources, removed: diff.removed };
  }

  onSnapshot(snapshot: Snapshot): void {
    for (const state of this.types.values()) {
      const current = snapshot.get(state.typeUrl);
      if (!state.sent || !current.differsFrom(state.sent)) continue;
      if (isNewPush(state, current)) {
        this.owed.add(state.typeUrl);
        continue;
      }
      const diff = this.diff(state, current);
      if (diff.resources.length > 0 || diff.removed.length > 0) this.owed.add(state.typeUrl);
    }
  }
}

/**
 * Whether a response of `snapshot` answers a push the stream has not had: istiod's full push
 * sends every resource a delta stream watches, changed or not (with `per-type` versioning
 * only what changed is sent). Conformance: "Pushes: delta: a push re-sends every resource…".
 */
function isNewPush(state: DeltaTypeState, snapshot: TypeSnapshot): boolean {
  return (
    snapshot.versioning === 'push' &&
    state.sent !== undefined &&
    state.sent.version !== snapshot.version
  );
}
