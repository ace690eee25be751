/**
 * Authentication of xDS streams on the TLS port, as istiod does it (pilot/pkg/xds/auth.go and
 * pkg/security/authentication.go): each authenticator is tried in turn — a client certificate
 * the TLS handshake verified against the mock's root and carrying a SPIFFE id (istiod's
 * ClientCertAuthenticator), then the pod's service account token in
 * `authorization: Bearer <token>`, reviewed with the CA's checks (its KubeJWTAuthenticator).
 * When none succeeds the stream ends with `UNAUTHENTICATED "authentication failure"`, istiod's
 * text, and istiod's log line says why. Used on a TLS port only: a plaintext port
 * authenticates nothing, as istiod's 15010 does not.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  StreamAuthentication,
  StreamAuthenticator,
  StreamCredentials,
} from '../core/stream-auth.js';
import { bearerToken } from './bearer-token.js';
import { reviewToken } from './service-account-token.js';
import { spiffeId } from './ca-service.js';

/** istiod's status message when no authenticator accepts a stream. */
export const XDS_AUTHENTICATION_FAILURE = 'authentication failure';

export interface XdsAuthDeps {
  jwtKey: KeyObject;
  audiences: readonly string[];
  trustDomain: string;
  log: Logger;
  now?: () => Date;
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

function fromToken(credentials: StreamCredentials, deps: XdsAuthDeps): Attempt {
  const token = bearerToken(credentials.authorization);
  if (typeof token !== 'string') {
    return { ok: false, reason: `target JWT extraction error: ${token.reason}` };
  }
  const review = reviewToken(token, deps.jwtKey, deps.audiences, deps.now?.() ?? new Date());
  if (!review.ok) {
    const cluster = credentials.clusterId ?? 'Kubernetes';
    return {
      ok: false,
      reason: `failed to validate the JWT from cluster "${cluster}": the token is not authenticated (${review.reason})`,
    };
  }
  return { ok: true, identity: spiffeId(deps.trustDomain, review.identity) };
}

export function createXdsAuthenticator(deps: XdsAuthDeps): StreamAuthenticator {
  return (credentials): StreamAuthentication => {
    // In istiod's order, and the first that succeeds decides (pkg/security authenticate): a
    // token is not even read when a certificate proved an identity, so the two never add up
    // (conformance case "Identity: the first authenticator that succeeds wins").
    const certificate = fromCertificate(credentials.peerCertificate, deps.trustDomain);
    if (certificate.ok) return { ok: true, identities: [certificate.identity] };
    const token = fromToken(credentials, deps);
    if (token.ok) return { ok: true, identities: [token.identity] };
    const attempts = [
      { name: 'ClientCertAuthenticator', attempt: certificate },
      { name: 'KubeJWTAuthenticator', attempt: token },
    ];
    const reason = attempts
      .map(({ name, attempt }) => `Authenticator ${name}: ${attempt.ok ? '' : attempt.reason}`)
      .join('; ');
    deps.log.warn(
      { peer: credentials.peer },
      `Failed to authenticate client from ${credentials.peer}: ${reason}`,
    );
    return { ok: false, message: XDS_AUTHENTICATION_FAILURE, reason };
  };
}
