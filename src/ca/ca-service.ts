/**
 * `CreateCertificate`, answered as istiod answers it (security/pkg/server/ca/server.go): the
 * bearer token is reviewed (a wrong audience, a bad signature or an expired token all become
 * `UNAUTHENTICATED "request authenticate failure"`, with istiod's log line); a request asking
 * for another identity (`ImpersonatedIdentity`) is refused, as istiod refuses it when no node
 * agent is trusted; then the CSR is parsed, its signature checked, and it is signed for the
 * token's identity, `spiffe://<trust domain>/ns/<ns>/sa/<sa>`, and the chain goes back leaf
 * first, root last. The exact reason a token was refused, which istiod only
 * logs, also travels in the `x-mock-istiod-reason` trailer, for tests and learners.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import { GrpcStatus } from '../core/grpc-status.js';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { checkCsrSignature, parseCsr } from '../tls/csr.js';
import type { CaRelay } from './ca-relay.js';
import { chainOf, signWorkloadCertificate, type CertificateAuthority } from '../tls/pki.js';
import { isMockIstiodError, MockIstiodError } from '../util/errors.js';
import type { CaOptions } from './security-options.js';
import {
  caServiceDefinition,
  type IstioCertificateRequest,
  type IstioCertificateResponse,
} from './ca-proto.js';
import { reviewToken, type ServiceAccountIdentity } from './service-account-token.js';
import { bearerToken } from './bearer-token.js';
import type { TokenReviewer } from './kube-token-review.js';
import type { AuthRefusal, CsrOutcome } from '../core/stream-auth.js';

/** istiod's status message for every authentication failure. */
export const AUTHENTICATE_FAILURE = 'request authenticate failure';
/** istiod's status message when a CSR asks for another identity and may not. */
export const IMPERSONATION_FAILURE = 'request impersonation authentication failure';
/** The request metadata key that asks for another identity (Istio's `ImpersonatedIdentity`). */
export const IMPERSONATED_IDENTITY = 'ImpersonatedIdentity';
/** istiod's log line for it when no node may impersonate (CA_TRUSTED_NODE_ACCOUNTS unset). */
export const IMPERSONATION_NOT_ALLOWED =
  'impersonation not allowed, as node authorizer (CA_TRUSTED_NODE_ACCOUNTS) is not configured';
/**
 * What a client sees asking istiod's plaintext 15010 for a certificate: the CA is not served
 * there, so gRPC answers UNIMPLEMENTED with this text.
 */
export const PLAINTEXT_CA_REFUSAL = 'unknown service istio.v1.auth.IstioCertificateService';
export const PLAINTEXT_CA_REASON =
  'the CA signs only on a TLS port, as istiod (15012, not 15010): serve with --tls, or allow it with --plaintext-ca';
/** The trailer carrying the precise reason a request was refused. */
export const REASON_TRAILER = 'x-mock-istiod-reason';

export interface CaServiceDeps {
  /** The signing CA; undefined when the mock has no CA key (then every request fails). */
  ca: CertificateAuthority | undefined;
  jwtKey: KeyObject;
  options: CaOptions;
  log: Logger;
  now?: () => Date;
  /** Refuse every request, as on istiod's plaintext port (the mock serves no TLS, and the
   * CA was not allowed on plaintext). */
  refusePlaintext?: boolean;
  /** Told of every refused caller (metrics). */
  onRefused?: (refusal: AuthRefusal) => void;
  /** Told what became of every call the service took (istiod's `citadel_server_*` counters). */
  onCsr?: (outcome: CsrOutcome) => void;
  /** Reviews tokens with a Kubernetes API server (`ca.tokenReview`); none: the mock's own key. */
  review?: TokenReviewer;
  /** `--relay-ca`: every request is signed by the upstream istiod's CA instead. */
  relay?: CaRelay;
}

export interface GrpcServiceEntry {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

type UnaryCall = grpc.ServerUnaryCall<IstioCertificateRequest, IstioCertificateResponse>;

export function spiffeId(trustDomain: string, identity: ServiceAccountIdentity): string {
  return `spiffe://${trustDomain}/ns/${identity.namespace}/sa/${identity.serviceAccount}`;
}

/** Go's `time.Duration` text for whole seconds (`3h0m0s`, `1m30s`, `45s`): istiod's wording. */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** A refusal (code `CA_REFUSED`): the gRPC status to answer with and the precise reason. */
function caRefused(grpcStatus: number, message: string, outcome: CsrOutcome, reason?: string) {
  return new MockIstiodError('CA_REFUSED', message, {
    details: { grpcStatus, reason, outcome },
  });
}

/** The longest reason sent in the trailer; the log has it whole. */
const MAX_REASON_CHARS = 1024;

/**
 * `reason` as a metadata value: gRPC allows printable ASCII only, and a reason may quote what
 * the caller sent (a token header's `alg`), so anything else is escaped as `\uXXXX`, and a
 * long reason is cut.
 */
export function trailerValue(reason: string): string {
  const escaped = reason.replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > MAX_REASON_CHARS ? `${escaped.slice(0, MAX_REASON_CHARS)}...` : escaped;
}

function toServiceError(
  grpcStatus: number,
  message: string,
  reason?: string,
): Partial<grpc.ServiceError> {
  const metadata = new (grpcJs().Metadata)();
  if (reason) metadata.set(REASON_TRAILER, trailerValue(reason));
  return { code: grpcStatus, details: message, metadata };
}

/** The caller's identity from its bearer token, or a `CA_REFUSED` error after istiod's log line. */
async function authenticate(
  call: UnaryCall,
  deps: CaServiceDeps,
  now: Date,
): Promise<ServiceAccountIdentity> {
  const token = bearerToken(call.metadata.get('authorization'));
  const review =
    typeof token !== 'string'
      ? { ok: false as const, ...token }
      : deps.review
        ? await deps.review(token)
        : reviewToken(token, deps.jwtKey, deps.options.audiences, now);
  if (review.ok) return review.identity;
  // istiod's KubeJWTAuthenticator wraps what the API server's TokenReview said. Reviewed by
  // the mock's own key, any bad token is just "the token is not authenticated" (what a
  // TokenReview says of it), and the precise reason is the mock's own.
  const cluster = String(call.metadata.get('clusterid')[0] ?? 'Kubernetes');
  const said = deps.review ? review.reason : 'the token is not authenticated';
  const detail =
    typeof token === 'string'
      ? `failed to validate the JWT from cluster "${cluster}": ${said}`
      : `target JWT extraction error: ${token.reason}`;
  deps.onRefused?.({
    service: 'ca',
    reason: 'token',
    peer: call.getPeer(),
    detail: review.reason,
  });
  deps.log.warn(
    { peer: call.getPeer(), reason: review.reason },
    `Failed to authenticate client from ${call.getPeer()}: Authenticator KubeJWTAuthenticator: ${detail}`,
  );
  throw caRefused(
    GrpcStatus.UNAUTHENTICATED,
    AUTHENTICATE_FAILURE,
    'unauthenticated',
    review.reason,
  );
}

/** The `ImpersonatedIdentity` a request's metadata asks for, or '' (a `google.protobuf.Struct`). */
function impersonatedIdentity(request: IstioCertificateRequest): string {
  const fields = (request.metadata as { fields?: Record<string, unknown> } | undefined)?.fields;
  const value = fields?.[IMPERSONATED_IDENTITY] as { stringValue?: unknown } | undefined;
  return typeof value?.stringValue === 'string' ? value.stringValue : '';
}

/**
 * istiod lets only trusted node agents (CA_TRUSTED_NODE_ACCOUNTS, ztunnel's) ask for another
 * identity; the mock has none, so every such request is refused as istiod refuses it then.
 */
function refuseImpersonation(call: UnaryCall, deps: CaServiceDeps): void {
  const asked = impersonatedIdentity(call.request);
  if (asked === '') return;
  const peer = call.getPeer();
  const detail = `${IMPERSONATION_NOT_ALLOWED} (asked for ${asked})`;
  deps.onRefused?.({ service: 'ca', reason: 'impersonation', peer, detail });
  deps.log.warn({ peer, impersonatedIdentity: asked }, IMPERSONATION_NOT_ALLOWED);
  throw caRefused(GrpcStatus.UNAUTHENTICATED, IMPERSONATION_FAILURE, 'unauthenticated', detail);
}

/** Signs the CSR for `identity`, with istiod's checks and messages (security/pkg/pki/ca). */
async function sign(
  request: IstioCertificateRequest,
  identity: ServiceAccountIdentity,
  deps: CaServiceDeps,
  now: Date,
): Promise<IstioCertificateResponse> {
  const { options } = deps;
  const signError = (code: number, outcome: CsrOutcome, message: string) =>
    caRefused(code, `CSR signing error (${message})`, outcome, message);
  if (!deps.ca) throw signError(GrpcStatus.INTERNAL, 'CA_NOT_READY', 'Istio CA is not ready');
  // istiod's order: the CSR is parsed and its signature checked, then the lifetime.
  const parsed = parseCsr(request.csr);
  if (!parsed.ok) throw signError(GrpcStatus.INVALID_ARGUMENT, 'CSR_ERROR', parsed.message);
  const badSignature = await checkCsrSignature(parsed.csr);
  if (badSignature) throw signError(GrpcStatus.INVALID_ARGUMENT, 'CSR_ERROR', badSignature);
  const requested = Number(request.validity_duration) || 0;
  if (requested > options.maxCertTtlSeconds) {
    const max = goDuration(options.maxCertTtlSeconds);
    const message = `requested TTL ${goDuration(requested)} is greater than the max allowed TTL ${max}`;
    throw signError(GrpcStatus.INVALID_ARGUMENT, 'TTL_ERROR', message);
  }
  const lifetime = requested > 0 ? requested : options.defaultCertTtlSeconds;
  const san = spiffeId(options.trustDomain, identity);
  const leaf = await signWorkloadCertificate(deps.ca, parsed.csr, [san], lifetime * 1000, now);
  deps.log.info({ san, ttl: goDuration(lifetime) }, `CSR successfully signed, sans [${san}].`);
  // One certificate per entry, each ending in a newline, as istiod sends them.
  return { cert_chain: chainOf(deps.ca, leaf) };
}

/** Hands the request to istiod's CA: its certificate chain, or its refusal as it gave it. */
function relayCertificate(
  call: UnaryCall,
  callback: grpc.sendUnaryData<IstioCertificateResponse>,
  relay: CaRelay,
  deps: CaServiceDeps,
): void {
  relay.createCertificate(call.request, call.metadata).then(
    (response) => {
      deps.onCsr?.('signed');
      callback(null, response);
    },
    (err: Partial<grpc.ServiceError>) => {
      deps.log.warn(
        { upstream: relay.address, code: err.code, details: err.details },
        "CSR refused by the upstream istiod's CA",
      );
      const code: number | undefined = err.code;
      deps.onCsr?.(code === GrpcStatus.UNAUTHENTICATED ? 'unauthenticated' : 'CSR_ERROR');
      callback({
        code: err.code ?? GrpcStatus.UNAVAILABLE,
        details: err.details ?? 'the upstream CA did not answer',
        metadata: err.metadata ?? new (grpcJs().Metadata)(),
      });
    },
  );
}

export function createCaService(deps: CaServiceDeps): GrpcServiceEntry {
  const now = deps.now ?? (() => new Date());
  const CreateCertificate = (
    call: UnaryCall,
    callback: grpc.sendUnaryData<IstioCertificateResponse>,
  ) => {
    if (deps.relay) {
      relayCertificate(call, callback, deps.relay, deps);
      return;
    }
    if (deps.refusePlaintext) {
      const peer = call.getPeer();
      deps.onRefused?.({ service: 'ca', reason: 'plaintext', peer, detail: PLAINTEXT_CA_REASON });
      deps.log.warn({ peer }, `CSR refused: ${PLAINTEXT_CA_REASON}`);
      callback(toServiceError(GrpcStatus.UNIMPLEMENTED, PLAINTEXT_CA_REFUSAL, PLAINTEXT_CA_REASON));
      return;
    }
    Promise.resolve()
      .then(async () => {
        const identity = await authenticate(call, deps, now());
        refuseImpersonation(call, deps);
        return sign(call.request, identity, deps, now());
      })
      .then(
        (response) => {
          deps.onCsr?.('signed');
          callback(null, response);
        },
        (err: unknown) => {
          if (isMockIstiodError(err, 'CA_REFUSED')) {
            const { grpcStatus, reason, outcome } = err.details;
            deps.onCsr?.(outcome as CsrOutcome);
            return callback(toServiceError(grpcStatus, err.message, reason));
          }
          // The key or the certificate could not be made (istiod's CertGenError).
          deps.onCsr?.('CERT_GEN_ERROR');
          deps.log.error({ err }, 'CSR signing failed');
          const message = err instanceof Error ? err.message : String(err);
          callback(toServiceError(GrpcStatus.INTERNAL, `CSR signing error (${message})`));
        },
      );
  };
  return { definition: caServiceDefinition(), implementation: { CreateCertificate } };
}
