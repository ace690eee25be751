/**
 * Who a stream lets in, as istiod decides it: the caller is authenticated before its first
 * request is read (a client certificate or a token, perhaps by a TokenReview), and once the
 * first request names the node, the node is authorized (ztunnel, the caller's identity).
 * Then, per request, what only some callers may ask for: the `api` generator's types and
 * istiod's debug types. Every refusal ends the stream with istiod's status and message.
 */
import { GrpcStatus } from '../core/grpc-status.js';
import type { Logger } from 'pino';
import type { AdsCall } from './ads-service.js';
import type { ServerEventEmitter } from '../core/events.js';
import type { ProxyIdentity } from '../core/identity.js';
import type { Snapshot } from '../core/snapshot.js';
import type { DebugAnswer, DebugAnswerer, DebugResource } from '../core/debug-answer.js';
import {
  AUTHENTICATION_FAILURE,
  authorizeStream,
  type StreamAuthentication,
  type StreamAuthenticator,
  type StreamCredentials,
  type VerifiedIdentity,
} from '../core/stream-auth.js';
import { apiGeneratorRefusal, hasIstiodGenerator } from '../protocol/generated-types.js';

/** What admission is told (part of the stream context). */
export interface AdmissionOptions {
  events: ServerEventEmitter;
  log: Logger;
  /** Authenticates each stream before its first request; undefined: every stream is let in. */
  authenticate?: StreamAuthenticator;
  /** Answers istiod's debug types; without it they are answered with no resources. */
  debug?: DebugAnswerer;
  /**
   * Refuse debug types to a stream without a verified identity, as istiod does by default
   * (`ENABLE_DEBUG_ENDPOINT_AUTH`); false answers them on any stream.
   */
  debugAuth?: boolean;
  /** Accept ztunnel nodes (istiod's `PILOT_ENABLE_AMBIENT`, off by default). */
  ambient?: boolean;
}

/** What admission reads of a stream, and how it ends one it refuses. */
export interface Admitted {
  readonly peer: string;
  /** The SPIFFE identities its caller proved (empty when the port authenticates nothing). */
  readonly identities: readonly string[];
  readonly isClosed: boolean;
  /** The snapshot the stream is served from. */
  snapshot(): Snapshot | undefined;
  end(code: number, text: string): void;
  /** Writes a complete response of a debug type. */
  writeDebug(typeUrl: string, resources: readonly DebugResource[], version: string): void;
}

/**
 * What the caller of a stream shows (its metadata and a client certificate TLS verified), each part read from the call when the authenticator first asks for
 * it: a port that authenticates nothing reads none of it (grpc-js builds the auth context
 * and the peer string on every ask; about 12 µs a connection, docs/BENCHMARKS.md).
 */
function credentialsOf(call: AdsCall): StreamCredentials {
  const strings = (key: string) =>
    call.metadata.get(key).filter((v): v is string => typeof v === 'string');
  let peer: string | undefined;
  let authorization: readonly string[] | undefined;
  let clusterId: { value: string | undefined } | undefined;
  let certificate: { value: Buffer | undefined } | undefined;
  return {
    get peer() {
      return (peer ??= call.getPeer());
    },
    get authorization() {
      return (authorization ??= strings('authorization'));
    },
    get clusterId() {
      return (clusterId ??= { value: strings('clusterid')[0] }).value;
    },
    get peerCertificate() {
      return (certificate ??= { value: call.getAuthContext().sslPeerCertificate?.raw }).value;
    },
  };
}

/**
 * istiod authenticates a stream before it reads a request: refused, the stream ends with
 * `UNAUTHENTICATED` and istiod's message, and never gets a session. Returns the identities
 * proven (empty when the port authenticates nothing), or undefined when refused.
 */
function settle(
  call: AdsCall,
  ctx: AdmissionOptions,
  auth: StreamAuthentication,
): readonly string[] | undefined {
  if (auth.ok) return auth.identities;
  const peer = call.getPeer();
  ctx.events.emit('auth-refused', { service: 'xds', reason: 'token', peer, detail: auth.reason });
  ctx.events.emit('stream-rejected', peer, auth.message);
  call.emit('error', { code: GrpcStatus.UNAUTHENTICATED, details: auth.message });
  return undefined;
}

export type Admit = (call: AdsCall, identities: readonly string[]) => void;

/** A port that authenticates nothing lets every stream in, proving no identity. */
const LET_IN: StreamAuthentication = Object.freeze({ ok: true, identities: Object.freeze([]) });

/**
 * Authenticates a call, then admits it. An answer that takes a call to the API server (a
 * TokenReview) leaves the stream unread meanwhile: no 'data' listener, so grpc-js holds its
 * requests back (HTTP/2 flow control), and every other stream goes on. `waiting` holds such
 * calls, so that close() ends them too; one its caller cancelled meanwhile is let go.
 */
export function authenticate(
  call: AdsCall,
  ctx: AdmissionOptions,
  waiting: Set<AdsCall>,
  admit: Admit,
): void {
  const authenticator = ctx.authenticate;
  const auth = authenticator ? authenticator(credentialsOf(call)) : LET_IN;
  if (!(auth instanceof Promise)) {
    const identities = settle(call, ctx, auth);
    if (identities) admit(call, identities);
    return;
  }
  waiting.add(call);
  // Authenticators answer refusals rather than reject; should one reject all the same, that
  // stream is refused, and the rejection never reaches the process.
  const refused = (err: unknown): StreamAuthentication => ({
    ok: false,
    message: AUTHENTICATION_FAILURE,
    reason: `the authenticator failed: ${(err as Error).message}`,
  });
  void auth.then(undefined, refused).then((answer) => {
    if (!waiting.delete(call) || call.cancelled) return;
    const identities = settle(call, ctx, answer);
    if (identities) admit(call, identities);
  });
}

/**
 * Whether the node of a stream's first request is refused (the stream is ended then).
 * istiod serves ztunnel only with ambient on (`PILOT_ENABLE_AMBIENT`); otherwise it ends the
 * stream with a plain error, which gRPC sends as UNKNOWN (conformance case "The node: a
 * ztunnel node ends the stream"). Then istiod's authorization: an authenticated caller must
 * be the proxy it says it is (namespace and service account), else PERMISSION_DENIED.
 */
export function refusedNode(
  opts: AdmissionOptions,
  stream: Admitted,
  proxy: ProxyIdentity,
): boolean {
  if (!opts.ambient && proxy.type === 'ztunnel') {
    const message = 'ztunnel requires PILOT_ENABLE_AMBIENT=true';
    opts.events.emit('stream-rejected', stream.peer, message);
    stream.end(GrpcStatus.UNKNOWN, message);
    return true;
  }
  const { identities, peer } = stream;
  const refusal = authorizeStream(proxy, identities);
  if (!refusal) return false;
  opts.log.warn(
    { peer, identities, node: proxy.nodeId },
    `Unauthorized XDS: ${peer} with identity [${identities.join(' ')}]: ${refusal.slice('authorization failed: '.length)}`,
  );
  opts.events.emit('stream-rejected', peer, refusal);
  stream.end(GrpcStatus.PERMISSION_DENIED, refusal);
  return true;
}

/**
 * A type istiod has no generator for (and the mock serves nothing of) goes to istiod's `api`
 * generator, which serves cluster-wide config to the control plane only: without a verified
 * identity UNAUTHENTICATED, outside the root namespace PERMISSION_DENIED (conformance cases
 * "Types without a generator" and "Identity"). In the root namespace it is answered empty.
 */
export function refusedByApiGenerator(
  opts: AdmissionOptions,
  stream: Admitted,
  typeUrl: string,
  verified: VerifiedIdentity | undefined,
): boolean {
  if (hasIstiodGenerator(typeUrl) || stream.snapshot()?.has(typeUrl)) return false;
  const refusal = apiGeneratorRefusal(verified);
  if (!refusal) return false;
  opts.events.emit('stream-rejected', stream.peer, refusal.message);
  stream.end(refusal.code, refusal.message);
  return true;
}

/**
 * Answers a debug request. A stream that asks only for debug types (istioctl's) is a debug
 * client, not a proxy: it is never registered nor announced, so it shows in no debug view,
 * journal or metric, as istiod leaves such clients out of syncz.
 */
export function answerDebug(
  opts: AdmissionOptions,
  stream: Admitted,
  request: { typeUrl: string; names: readonly string[] },
  caller: ProxyIdentity,
  identity: VerifiedIdentity | undefined,
): void {
  const { typeUrl, names } = request;
  opts.log.debug({ peer: stream.peer, type: typeUrl, names }, 'ADS: debug request');
  if (opts.debugAuth !== false && !identity) {
    // istiod's StatusGen and DebugGen (conformance cases "Debug types").
    opts.log.warn(
      `proxy ${caller.id} is not authorized to receive debug info. Ensure you are connecting over TLS port and are authenticated.`,
    );
    stream.end(GrpcStatus.UNAUTHENTICATED, 'authentication required');
    return;
  }
  const answering = opts.debug
    ? opts.debug({ typeUrl, names, caller, identity })
    : Promise.resolve<DebugAnswer>({ ok: true, resources: [] });
  answering.then(
    (answer) => {
      if (stream.isClosed) return;
      if (!answer.ok) return stream.end(answer.code, answer.message);
      stream.writeDebug(typeUrl, answer.resources, stream.snapshot()?.version ?? '');
    },
    (err: unknown) => {
      opts.log.error({ err, type: typeUrl }, 'ADS: debug request failed');
      stream.end(GrpcStatus.INTERNAL, `debug request failed: ${String(err)}`);
    },
  );
}
