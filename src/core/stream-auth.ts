/**
 * The seam where xDS streams are authenticated before their first request is read, as
 * istiod authenticates every stream on its TLS port (pilot/pkg/xds/auth.go,
 * pkg/security/authentication.go): what the server hands over about the caller, and what the
 * authenticator answers.
 */

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

export type StreamAuthentication =
  /** `identities`: the SPIFFE ids proven; empty when the port does not authenticate. */
  | { ok: true; identities: readonly string[] }
  /** Refused: `message` is what the caller is told, `reason` the precise cause. */
  | { ok: false; message: string; reason: string };

/**
 * Authenticates a stream's caller; called once per stream, before any request is read. A port
 * that does not authenticate (plaintext, as istiod's 15010, or auth turned off) has none.
 */
export type StreamAuthenticator = (credentials: StreamCredentials) => StreamAuthentication;

/** A refusal by the mock's security side, reported for metrics and the journal. */
export interface AuthRefusal {
  /** `xds`: a stream on the xDS port; `ca`: a `CreateCertificate` call. */
  service: 'xds' | 'ca';
  /** `token`: no valid credential; `plaintext`: the CA asked on a plaintext port. */
  reason: 'token' | 'plaintext';
  peer: string;
  /** The precise cause, as logged. */
  detail: string;
}
