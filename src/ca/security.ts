/**
 * The security side of a mock istiod, assembled at start: the TLS material (in memory, or in
 * a directory), the gRPC server credentials for 15012 (TLS, or plaintext h2c), the CA service
 * served beside ADS either way, and token minting with the mock's key.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcJs } from '../util/grpc-js.js';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { CaRelay } from './ca-relay.js';
import { createCaService, type GrpcServiceEntry } from './ca-service.js';
import {
  mintToken,
  resolveTokenRequest,
  type MintedToken,
  type TokenRequest,
} from './service-account-token.js';
import { MockIstiodError } from '../util/errors.js';
import { servingHosts, type SecurityOptions, type TlsOptions } from './security-options.js';
import {
  createCaMaterial,
  prepareTlsMaterial,
  type CaMaterial,
  type TlsMaterial,
} from '../tls/tls-material.js';
import { TLS_FILES } from '../tls/tls-files.js';
import type { AuthRefusal, CsrOutcome, StreamAuthenticator } from '../core/stream-auth.js';
import { createXdsAuthenticator } from './xds-auth.js';
import { createKubeTokenReviewer, kubeApiAccess, type TokenReviewer } from './kube-token-review.js';
import { createCertificateIssuer, type CertificateIssuer } from './issue-certificate.js';

/** What a started mock tells about its TLS and CA, and the token minting it offers. */
export interface MockSecurity {
  /** Whether the xDS port speaks TLS. */
  readonly tls: boolean;
  /** The root certificate (PEM): Envoy's trust anchor, and the last entry of every chain issued. */
  readonly rootCert: string;
  /** With TLS on: `<dir>/root-cert.pem`, for Envoy's `validation_context.trusted_ca.filename`. */
  readonly rootCertPath: string | undefined;
  /** With TLS on: the directory holding the certificates and keys. */
  readonly dir: string | undefined;
  /** Token audiences the CA accepts. */
  readonly audiences: readonly string[];
  readonly trustDomain: string;
  /** Whether xDS streams are authenticated (TLS with `xdsAuth` on; docs/security.md). */
  readonly xdsAuth: boolean;
  /**
   * Mints a service account token signed with the mock's key (defaults: namespace and
   * service account `default`, audience `istio-ca`, one hour). Give a wrong audience to see
   * the CA refuse it. Throws `MockIstiodError` naming every bad field.
   */
  createToken(request?: Partial<TokenRequest>): MintedToken;
  /**
   * A certificate from the mock's CA for a workload identity, as istiod's CA signs one (from
   * a CSR, or with a key made for it); every problem of the request with its field.
   */
  issueCertificate: CertificateIssuer;
}

export interface PreparedSecurity extends MockSecurity {
  /** What the gRPC server on 15012 binds with; undefined: plaintext (without grpc-js). */
  readonly credentials: grpc.ServerCredentials | undefined;
  /** `istio.v1.auth.IstioCertificateService`, served beside ADS. */
  readonly caService: GrpcServiceEntry;
  /** Authenticates xDS streams (TLS with `xdsAuth` on); undefined: every stream is let in. */
  readonly authenticate: StreamAuthenticator | undefined;

  /** Removes a temporary directory the mock made for itself. */
  dispose(): void;
}

/** What the security side reports, for metrics and the journal. */
export interface SecurityHooks {
  /** A caller refused (an xDS stream without credentials, a CA request). */
  onRefused?: (refusal: AuthRefusal) => void;
  /** What became of a `CreateCertificate` call the CA service took. */
  onCsr?: (outcome: CsrOutcome) => void;
  /** `relayCa`: the upstream istiod's CA signs every request. */
  caRelay?: CaRelay;
}

/** Takes the options `resolveSecurityOptions` resolved (once, with the other options). */
export async function prepareSecurity(
  options: SecurityOptions,
  log: Logger,
  hooks: SecurityHooks = {},
): Promise<PreparedSecurity> {
  const { tls, ca: caOptions } = options;
  // `tls: true` without a directory: one of its own, removed again at close.
  const temporary =
    tls && tls.dir === undefined ? mkdtempSync(join(tmpdir(), 'mock-istiod-tls-')) : undefined;
  const dispose = () => {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  };
  const dir = tls ? resolve(tls.dir ?? (temporary as string)) : undefined;
  let material: CaMaterial & Partial<TlsMaterial>;
  try {
    material = await loadMaterial(tls, dir, caOptions.trustDomain, log);
  } catch (err) {
    dispose();
    throw err;
  }
  const { rootCertPem, jwtKey } = material;
  const { audiences, trustDomain } = caOptions;
  let review: TokenReviewer | undefined;
  try {
    review = caOptions.tokenReview
      ? createKubeTokenReviewer(kubeApiAccess(caOptions.tokenReview), audiences)
      : undefined;
  } catch (err) {
    dispose();
    throw err;
  }
  const xdsAuth = tls !== false && options.xdsAuth;
  return {
    tls: tls !== false,
    rootCert: rootCertPem,
    rootCertPath: dir ? join(dir, TLS_FILES.rootCert) : undefined,
    dir,
    audiences: caOptions.audiences,
    trustDomain: caOptions.trustDomain,
    credentials: tlsCredentials(material),
    caService: createCaService({
      ca: material.ca,
      jwtKey,
      options: caOptions,
      log,
      refusePlaintext: tls === false && !caOptions.plaintext,
      onRefused: hooks.onRefused,
      onCsr: hooks.onCsr,
      ...(review && { review }),
      ...(hooks.caRelay && { relay: hooks.caRelay }),
    }),
    xdsAuth,
    authenticate: xdsAuth
      ? createXdsAuthenticator({ jwtKey, audiences, trustDomain, log, ...(review && { review }) })
      : undefined,
    createToken: (request = {}) => createToken(jwtKey, request),
    issueCertificate: createCertificateIssuer(material.ca, rootCertPem, caOptions),
    dispose,
  };
}

/** With TLS, the directory's material (files made or checked); without, a CA in memory. */
async function loadMaterial(
  tls: TlsOptions | false,
  dir: string | undefined,
  trustDomain: string,
  log: Logger,
): Promise<CaMaterial & Partial<TlsMaterial>> {
  if (!tls) return createCaMaterial(trustDomain);
  const hosts = servingHosts(tls);
  const prepared = await prepareTlsMaterial({ dir, hosts, trustDomain, cacerts: tls.cacerts });
  if (!prepared.ok) {
    throw MockIstiodError.fromProblems(
      'INVALID_OPTIONS',
      'invalid TLS directory',
      prepared.problems,
    );
  }
  for (const note of prepared.value.notes) log.info({ tlsDir: dir }, note);
  return prepared.value;
}

/**
 * TLS with the serving certificate, when there is one. Client certificates are asked for but
 * not required, as istiod does: Envoy sends none and authenticates with its token; a client
 * with a certificate from the mock's CA (istioctl's `--cert-dir`) is verified against the root.
 */
function tlsCredentials(
  material: CaMaterial & Partial<TlsMaterial>,
): grpc.ServerCredentials | undefined {
  const { certChainPem, keyPem, rootCertPem } = material;
  if (certChainPem === undefined || keyPem === undefined) return undefined;
  return grpcJs().experimental.createCertificateProviderServerCredentials(
    staticCertificates({ certificate: Buffer.from(certChainPem), privateKey: Buffer.from(keyPem) }),
    staticCertificates(undefined, { caCertificate: Buffer.from(rootCertPem) }),
    false,
  );
}

/**
 * A grpc-js certificate provider that hands out the same certificates for ever. grpc-js adds
 * its listeners before it registers the server that waits for them, so they are told on the
 * next tick rather than at once.
 */
function staticCertificates(
  identity: grpc.experimental.IdentityCertificateUpdate | undefined,
  ca?: grpc.experimental.CaCertificateUpdate,
): grpc.experimental.CertificateProvider {
  return {
    addCaCertificateListener: (listener) => queueMicrotask(() => listener(ca ?? null)),
    removeCaCertificateListener: () => undefined,
    addIdentityCertificateListener: (listener) => queueMicrotask(() => listener(identity ?? null)),
    removeIdentityCertificateListener: () => undefined,
  };
}

function createToken(key: KeyObject, request: Partial<TokenRequest>): MintedToken {
  const checked = resolveTokenRequest(request);
  if (!checked.ok) {
    throw MockIstiodError.fromProblems(
      'INVALID_OPTIONS',
      'invalid token request',
      checked.problems,
    );
  }
  return mintToken(key, checked.value);
}
