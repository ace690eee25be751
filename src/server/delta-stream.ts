/**
 * A delta ADS stream (`DeltaAggregatedResources`): each response carries what the session
 * decided (src/protocol/delta-session.ts: what a request asked for, or what a push changed),
 * unversioned as istiod sends it unless `deltaResourceVersions`. Resource entries are
 * encoded once per content (src/xds/wire-delta.ts); only the list differs per stream, and
 * responses that several streams are owed alike are encoded once: small ones, and a CDS or
 * LDS response carrying the whole type (what istiod's full push sends every stream).
 */
import { DeltaSession, type DeltaTypeState } from '../protocol/delta-session.js';
import type { NamedResource } from '../core/snapshot.js';
import type { TypeSnapshot } from '../core/snapshot.js';
import {
  decodeDeltaRequest,
  encodeDeltaResponseBody,
  type DeltaDiscoveryRequest,
} from '../xds/wire-delta.js';
import { StreamWriter, withNonce, type BuiltResponse } from './stream-writer.js';
import type { DebugBody } from './ads-stream.js';
import { isWildcardForIstiod } from '../core/types/registry.js';

/** Responses with at most this many resources share their encoding (see `sharedBody`). */
const SHARED_MAX_RESOURCES = 64;
const SHARED_MAX_PER_SNAPSHOT = 64;

/**
 * Bodies (all but the nonce) of responses several streams are owed alike, by type snapshot
 * and content, encoded once for all of them as SotW bodies are: small ones (a few changed
 * resources), keyed by their content; and a response of a wildcard type (CDS, LDS) with every
 * resource of the snapshot and nothing removed, keyed as such (a full push sends it to every
 * stream). Other large responses are encoded per stream: keying them would cost about as
 * much.
 */
const sharedBodies = new WeakMap<TypeSnapshot, Map<string, Buffer>>();
/** The keys of the whole-type bodies: constants, not a string made per response. */
const WHOLE = '\x03whole';
const WHOLE_VERSIONED = 'v\x03whole';

function sharedBody(
  snapshot: TypeSnapshot,
  resources: readonly NamedResource[],
  removed: readonly string[],
  versioned: boolean,
  encode: () => Buffer,
): Buffer {
  const flag = versioned ? 'v' : '';
  // A wildcard type's resources are always drawn from the snapshot, in its order: as many as
  // it holds are all of them.
  const whole =
    removed.length === 0 &&
    resources.length === snapshot.resources.size &&
    isWildcardForIstiod(snapshot.typeUrl);
  if (!whole && resources.length + removed.length > SHARED_MAX_RESOURCES) return encode();
  const key = whole
    ? versioned
      ? WHOLE_VERSIONED
      : WHOLE
    : `${flag}\x02${resources.map((r) => `${r.name}\0${r.version}\0${r.wireVersion ?? ''}`).join('\n')}\x01${removed.join('\n')}`;
  let bodies = sharedBodies.get(snapshot);
  if (!bodies) sharedBodies.set(snapshot, (bodies = new Map<string, Buffer>()));
  let body = bodies.get(key);
  if (!body) {
    body = encode();
    if (bodies.size >= SHARED_MAX_PER_SNAPSHOT) bodies.clear();
    bodies.set(key, body);
  }
  return body;
}

/** A debug type's answer as a delta response body (its resources unversioned). */
export function encodeDeltaDebug({ typeUrl, resources, version, identifier }: DebugBody): Buffer {
  return encodeDeltaResponseBody({
    systemVersion: version,
    typeUrl,
    resources: resources.map((r) => ({ ...r, version: '' })),
    removed: [],
    controlPlaneId: identifier,
  });
}

export class DeltaStream extends StreamWriter<DeltaDiscoveryRequest, DeltaSession> {
  readonly protocol = 'delta';

  protected newSession(): DeltaSession {
    const versioned = this.ctx.deltaResourceVersions === true;
    const spec = this.ctx.profile === 'xds-spec';
    return new DeltaSession(undefined, versioned, this.ctx.nackTextMax, spec);
  }

  protected decode(bytes: Buffer): DeltaDiscoveryRequest {
    return decodeDeltaRequest(bytes);
  }

  protected encodeDebug(body: DebugBody): Buffer {
    return encodeDeltaDebug(body);
  }

  protected build(
    state: DeltaTypeState,
    snapshot: TypeSnapshot,
    reuseNonce: boolean,
  ): BuiltResponse | undefined {
    const next = this.session.next(state, snapshot, reuseNonce);
    if (!next) return undefined;
    // istiod's resources carry no version of their own (conformance: "Delta: subscriptions"
    // and "Versions and nonces"): written only with deltaResourceVersions (which the
    // per-type scheme implies).
    const versioned = this.ctx.deltaResourceVersions === true;
    const body = sharedBody(snapshot, next.resources, next.removed, versioned, () =>
      encodeDeltaResponseBody({
        systemVersion: snapshot.version,
        typeUrl: state.typeUrl,
        resources: next.resources,
        removed: next.removed,
        controlPlaneId: this.ctx.controlPlaneId,
        versioned,
      }),
    );
    const { message, frame } = withNonce(body, next.nonce);
    const { version } = snapshot;
    const count = next.resources.length;
    const removed = next.removed.length;
    return { message, frame, version, nonce: next.nonce, count, removed };
  }
}
