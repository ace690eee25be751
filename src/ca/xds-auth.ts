/**
 * Authentication of xDS streams on the TLS port, as istiod does it (pilot/pkg/xds/auth.go and
 * pkg/security/authentication.go): each authenticator is tried in turn — a client certificate
 * the TLS handshake verified against the mock's root and carrying a SPIFFE id (istiod's
 * ClientCertAuthenticator), then the pod's service account token in
 * `authorization: Bearer <token>`, reviewed as the CA reviews it (its KubeJWTAuthenticator):
 * with the mock's own key, or, with `ca.tokenReview`, by the cluster's API server. A review
 * by the API server is an HTTP call: the stream waits for it (and reads no request) while
 * every other stream goes on; a failed or slow API server refuses the stream once the
 * review's own deadline passes, as any other failed review. When none succeeds the stream ends with `UNAUTHENTICATED "authentication failure"`, istiod's
 * text, and istiod's log line says why. Used on a TLS port only: a plaintext port
 * authenticates nothing, as istiod's 15010 does not.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import {
  AUTHENTICATION_FAILURE,
  type StreamAuthentication,
  type StreamAuthenticator,
  type StreamCredentials,
} from '../core/stream-auth.js';
import { bearerToken } from './bearer-token.js';
import { reviewToken, type TokenReview } from './service-account-token.js';
import type { TokenReviewer } from './kube-token-review.js';
import { spiffeId } from './ca-service.js';

/** istiod's status message when no authenticator accepts a stream. */
export const XDS_AUTHENTICATION_FAILURE = AUTHENTICATION_FAILURE;

export interface XdsAuthDeps {
  jwtKey: KeyObject;
  audiences: readonly string[];
  trustDomain: string;
  log: Logger;
  now?: () => Date;
  /** Reviews tokens with a Kubernetes API server (`ca.tokenReview`); none: the mock's own key. */
  review?: TokenReviewer;
}

type Attempt = { ok: true; identity: string } | { ok: false; reason: string };

/** The SPIFFE id of a verified client certificate (istiod's ClientCertAuthenticator). */
function fromCertificate(der: Buffer | undefined, trustDomain: string): Attempt {
  if (!der) return { ok: false, reason: 'no verified chain is found' };
  const san = new X509Certificate(der).subjectAltName ?? '';
  const id = san
    .split(', ')
    .filter((entry) => entry.startsWith('URI:spiffe://'))
    .map((entry) => entry.slice('URI:'.length))[0];
  if (!id) return { ok: false, reason: 'the client certificate carries no SPIFFE identity' };
  if (!id.startsWith(`spiffe://${trustDomain}/`)) {
    return {
      ok: false,
      reason: `the client certificate's identity ${id} is not in ${trustDomain}`,
    };
  }
  return { ok: true, identity: id };
}

function fromReview(
  review: TokenReview,
  credentials: StreamCredentials,
  deps: XdsAuthDeps,
): Attempt {
  if (review.ok) return { ok: true, identity: spiffeId(deps.trustDomain, review.identity) };
  const cluster = credentials.clusterId ?? 'Kubernetes';
  // The API server's reason is istiod's own text; the mock's key says what a TokenReview says
  // of any bad token, with the precise cause after it.
  const said = deps.review ? review.reason : `the token is not authenticated (${review.reason})`;
  return {
    ok: false,
    reason: `failed to validate the JWT from cluster "${cluster}": ${said}`,
  };
}

function refuse(
  credentials: StreamCredentials,
  certificate: Attempt,
  token: Attempt,
  log: Logger,
): StreamAuthentication {
  const attempts = [
    { name: 'ClientCertAuthenticator', attempt: certificate },
    { name: 'KubeJWTAuthenticator', attempt: token },
  ];
  const reason = attempts
    .map(({ name, attempt }) => `Authenticator ${name}: ${attempt.ok ? '' : attempt.reason}`)
    .join('; ');
  log.warn(
    { peer: credentials.peer },
    `Failed to authenticate client from ${credentials.peer}: ${reason}`,
  );
  return { ok: false, message: XDS_AUTHENTICATION_FAILURE, reason };
}

function decide(
  credentials: StreamCredentials,
  certificate: Attempt,
  token: Attempt,
  log: Logger,
): StreamAuthentication {
  return token.ok
    ? { ok: true, identities: [token.identity] }
    : refuse(credentials, certificate, token, log);
}

export function createXdsAuthenticator(deps: XdsAuthDeps): StreamAuthenticator {
  return (credentials) => {
    // In istiod's order, and the first that succeeds decides (pkg/security authenticate): a
    // token is not even read when a certificate proved an identity, so the two never add up
    // (conformance case "Identity: the first authenticator that succeeds wins").
    const certificate = fromCertificate(credentials.peerCertificate, deps.trustDomain);
    if (certificate.ok) return { ok: true, identities: [certificate.identity] };
    const token = bearerToken(credentials.authorization);
    if (typeof token !== 'string') {
      const extraction = {
        ok: false as const,
        reason: `target JWT extraction error: ${token.reason}`,
      };
      return refuse(credentials, certificate, extraction, deps.log);
    }
    if (!deps.review) {
      const review = reviewToken(token, deps.jwtKey, deps.audiences, deps.now?.() ?? new Date());
      return decide(credentials, certificate, fromReview(review, credentials, deps), deps.log);
    }
    // The reviewer never rejects: a failed exchange is a refusal with its reason.
    return deps
      .review(token)
      .then((review) =>
        decide(credentials, certificate, fromReview(review, credentials, deps), deps.log),
      );
  };
}
