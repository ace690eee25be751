/**
 * The seam where xDS streams are authenticated before their first request is read, as
 * istiod authenticates every stream on its TLS port (pilot/pkg/xds/auth.go,
 * pkg/security/authentication.go): what the server hands over about the caller, and what the
 * authenticator answers.
 */
import type { ProxyIdentity } from './identity.js';

/** What a stream's caller shows, taken from the gRPC call by the server. */
export interface StreamCredentials {
  /** `host:port` of the caller. */
  peer: string;
  /** The `authorization` metadata values (`Bearer <token>`). */
  authorization: readonly string[];
  /** The `clusterid` metadata value, if any (pilot-agent sends its cluster). */
  clusterId: string | undefined;
  /** The DER of a client certificate the TLS handshake verified against the mock's root. */
  peerCertificate: Buffer | undefined;
}

/** istiod's status message when no authenticator accepts a stream. */
export const AUTHENTICATION_FAILURE = 'authentication failure';

export type StreamAuthentication =
  /** `identities`: the SPIFFE ids proven; empty when the port does not authenticate. */
  | { ok: true; identities: readonly string[] }
  /** Refused: `message` is what the caller is told, `reason` the precise cause. */
  | { ok: false; message: string; reason: string };

/**
 * Authenticates a stream's caller; called once per stream, before any request is read. A port
 * that does not authenticate (plaintext, as istiod's 15010, or auth turned off) has none.
 * An answer that needs a call elsewhere (a Kubernetes TokenReview) comes as a promise, which
 * never rejects; the stream reads nothing until it settles.
 */
export type StreamAuthenticator = (
  credentials: StreamCredentials,
) => StreamAuthentication | Promise<StreamAuthentication>;

/** A refusal by the mock's security side, reported for metrics and the journal. */
export interface AuthRefusal {
  /** `xds`: a stream on the xDS port; `ca`: a `CreateCertificate` call. */
  service: 'xds' | 'ca';
  /**
   * `token`: no valid credential; `plaintext`: the CA asked on a plaintext port;
   * `impersonation`: a CSR asking for another identity (`ImpersonatedIdentity`).
   */
  reason: 'token' | 'plaintext' | 'impersonation';
  peer: string;
  /** The precise cause, as logged. */
  detail: string;
}

/**
 * What became of a `CreateCertificate` call the CA service took, as istiod's
 * `citadel_server_*` counters tell it: signed, refused before signing (`unauthenticated`),
 * or refused by the signer with istiod's error type.
 */
export type CsrOutcome =
  'signed' | 'unauthenticated' | 'CA_NOT_READY' | 'CSR_ERROR' | 'TTL_ERROR' | 'CERT_GEN_ERROR';

/** istiod's root namespace (`meshConfig.rootNamespace`, by default its own namespace). */
export const ROOT_NAMESPACE = 'istio-system';

/**
 * The namespace istiod takes a proxy's configuration from (its `ConfigNamespace`): `NAMESPACE`,
 * else its DNS domain.
 */
export function configNamespace(proxy: ProxyIdentity): string {
  const fromMetadata = proxy.metadata.NAMESPACE;
  if (typeof fromMetadata === 'string' && fromMetadata !== '') return fromMetadata;
  const parts = proxy.dnsDomain.split('.');
  return parts.length > 1 ? (parts[0] as string) : '';
}

const SPIFFE_PATH = /^spiffe:\/\/[^/]+\/ns\/([^/]+)\/sa\/([^/]+)$/;

/** The SPIFFE identity istiod verified for a proxy (its `VerifiedIdentity`). */
export interface VerifiedIdentity {
  /** The SPIFFE id as proven, as istiod prints it (`spiffe://<domain>/ns/<ns>/sa/<sa>`). */
  id: string;
  namespace: string;
  serviceAccount: string;
}

/**
 * The first proven identity naming the proxy's namespace and, when its metadata says one, its
 * service account (pilot/pkg/xds/auth.go); undefined when none does or none was proven.
 */
export function verifiedIdentity(
  proxy: ProxyIdentity,
  identities: readonly string[],
): VerifiedIdentity | undefined {
  const namespace = configNamespace(proxy);
  const serviceAccount = proxyServiceAccount(proxy);
  for (const id of identities) {
    const match = SPIFFE_PATH.exec(id);
    if (!match) continue;
    const [, idNamespace = '', idAccount = ''] = match;
    if (namespace !== '' && idNamespace !== namespace) continue;
    if (serviceAccount !== '' && idAccount !== serviceAccount) continue;
    return { id, namespace: idNamespace, serviceAccount: idAccount };
  }
  return undefined;
}

function proxyServiceAccount(proxy: ProxyIdentity): string {
  const account = proxy.metadata.SERVICE_ACCOUNT;
  return typeof account === 'string' ? account : '';
}

/**
 * istiod's authorization of an authenticated stream (pilot/pkg/xds/auth.go): one of the
 * proven SPIFFE identities must name the proxy's namespace and, when its metadata says one,
 * its service account. Returns the refusal (ended with PERMISSION_DENIED), or undefined.
 * A stream nothing authenticated (`identities` empty) is not checked, as in istiod.
 */
export function authorizeStream(
  proxy: ProxyIdentity,
  identities: readonly string[],
): string | undefined {
  if (identities.length === 0 || verifiedIdentity(proxy, identities)) return undefined;
  const namespace = configNamespace(proxy);
  const serviceAccount = proxyServiceAccount(proxy);
  return `authorization failed: no identities ([${identities.join(' ')}]) matched ${namespace}/${serviceAccount}`;
}
