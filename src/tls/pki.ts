/**
 * The certificates of a mock istiod, made the way istiod's self-signed CA makes them: a root
 * CA (`O=<trust domain>`, ten years), istiod's serving certificate for
 * `istiod.istio-system.svc` (and, so that a local Envoy can connect, `localhost`, 127.0.0.1
 * and ::1), and workload certificates signed from a CSR with the caller's SPIFFE identity as
 * the only subject alternative name. Built with @peculiar/x509 over node's WebCrypto
 * (node:crypto makes keys but not certificates), except the root, which root-cert.ts writes
 * itself so that a mock without TLS never loads that library unless a workload asks.
 */
import { isIP } from 'node:net';
import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as x509 from '@peculiar/x509';
import { generateSigningKey, privateKeyToPem, toPem, type SigningKey } from './keys.js';
import { selfSignedRoot } from './root-cert.js';

const require = createRequire(import.meta.url);
let loaded: typeof x509 | undefined;

/**
 * The X.509 library, loaded on first use: it is some 170 modules and 75 ms, and only TLS and
 * the CA need it. It resolves its parts through tsyringe, which needs the Reflect metadata API.
 */
function X509(): typeof x509 {
  if (!loaded) {
    require('reflect-metadata');
    const lib = require('@peculiar/x509') as typeof x509;
    lib.cryptoProvider.set(webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
    loaded = lib;
  }
  return loaded;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a minute in the past, so that a peer whose clock lags accepts them. */
const BACKDATE_MS = 60 * 1000;

export const ROOT_VALIDITY_MS = 10 * 365 * DAY_MS;
export const SERVING_VALIDITY_MS = 365 * DAY_MS;

/** A certificate authority able to sign: its certificate and key. */
export interface CertificateAuthority {
  certPem: string;
  key: SigningKey;
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * A new root CA with its own key. The certificate is written by root-cert.ts, not by the X.509
 * library, so that making it (every mock does, at start) does not load the library.
 */
export async function createRootCa(
  trustDomain: string,
  now = new Date(),
): Promise<CertificateAuthority & { keyPem: string }> {
  const key = await generateSigningKey();
  const der = await selfSignedRoot({
    organization: trustDomain,
    serial: serialNumber(),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + ROOT_VALIDITY_MS),
    key,
  });
  return {
    certPem: toPem(der, 'CERTIFICATE'),
    key,
    keyPem: await privateKeyToPem(key.privateKey),
  };
}

/** istiod's serving certificate, with a new key, for `hosts` (DNS names or IP addresses). */
export async function issueServingCertificate(
  ca: CertificateAuthority,
  hosts: readonly string[],
  now = new Date(),
): Promise<IssuedCertificate> {
  const lib = X509();
  const key = await generateSigningKey();
  const names = hosts.map((host): x509.JsonGeneralName =>
    isIP(host) !== 0 ? { type: 'ip', value: host } : { type: 'dns', value: host },
  );
  const spki = await webcrypto.subtle.exportKey('spki', key.publicKey);
  const cert = await signLeaf(ca, {
    publicKey: new lib.PublicKey(spki),
    names,
    notAfter: new Date(now.getTime() + SERVING_VALIDITY_MS),
    now,
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyToPem(key.privateKey) };
}

/** A certificate signing request that parsed, with the public key it asks to have certified. */
export type ParsedCsr = x509.Pkcs10CertificateRequest;

/** Parses a PEM CSR; the error messages are istiod's (security/pkg/pki/util). */
export function parseCsr(
  pem: string,
): { ok: true; csr: ParsedCsr } | { ok: false; message: string } {
  if (!/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(pem)) {
    return { ok: false, message: 'certificate signing request is not properly encoded' };
  }
  try {
    return { ok: true, csr: new (X509().Pkcs10CertificateRequest)(pem) };
  } catch {
    return { ok: false, message: 'failed to parse X.509 certificate signing request' };
  }
}

/**
 * Why the CSR's self-signature does not prove its key, in the words of Go's crypto/x509
 * (`CheckSignature`, which istiod calls before signing), or undefined when it does. As in Go,
 * RSA (PKCS #1 v1.5 and PSS), ECDSA and Ed25519 are understood; any other algorithm is not.
 */
export async function checkCsrSignature(csr: ParsedCsr): Promise<string | undefined> {
  let name: string;
  try {
    name = String((csr.signatureAlgorithm as { name?: unknown }).name);
  } catch {
    return GO_UNSUPPORTED_ALGORITHM;
  }
  const failure = GO_VERIFICATION_FAILURES[name];
  if (!failure) return GO_UNSUPPORTED_ALGORITHM;
  try {
    return (await csr.verify()) ? undefined : failure;
  } catch {
    return failure;
  }
}

const GO_UNSUPPORTED_ALGORITHM = 'x509: cannot verify signature: algorithm unimplemented';
const GO_VERIFICATION_FAILURES: Record<string, string> = {
  'RSASSA-PKCS1-v1_5': 'crypto/rsa: verification error',
  'RSA-PSS': 'crypto/rsa: verification error',
  ECDSA: 'x509: ECDSA verification failure',
  Ed25519: 'x509: Ed25519 verification failure',
};

/**
 * A workload certificate for the CSR's public key. As istiod does, the identity comes from
 * the caller (`uris`, SPIFFE ids), not from the CSR, and the subject is left empty.
 */
export async function signWorkloadCertificate(
  ca: CertificateAuthority,
  csr: ParsedCsr,
  uris: readonly string[],
  lifetimeMs: number,
  now = new Date(),
): Promise<string> {
  const cert = await signLeaf(ca, {
    publicKey: csr.publicKey,
    names: uris.map((value) => ({ type: 'url', value })),
    notAfter: new Date(now.getTime() + lifetimeMs),
    now,
  });
  return cert.toString('pem');
}

/**
 * A workload certificate with a key made for it (the key never having been asked for in a
 * CSR): what a caller gets that has no key of its own (`POST /ca/certificates` without a CSR),
 * and what a tool that is not a pod (istioctl) presents to the mock's TLS port. The identity
 * is `uris`, as above.
 */
export async function issueWorkloadCertificate(
  ca: CertificateAuthority,
  uris: readonly string[],
  lifetimeMs: number,
  now = new Date(),
): Promise<IssuedCertificate> {
  const lib = X509();
  const key = await generateSigningKey();
  const spki = await webcrypto.subtle.exportKey('spki', key.publicKey);
  const cert = await signLeaf(ca, {
    publicKey: new lib.PublicKey(spki),
    names: uris.map((value) => ({ type: 'url', value })),
    notAfter: new Date(now.getTime() + lifetimeMs),
    now,
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyToPem(key.privateKey) };
}

interface LeafParams {
  publicKey: x509.PublicKey;
  names: x509.JsonGeneralName[];
  notAfter: Date;
  now: Date;
}

async function signLeaf(ca: CertificateAuthority, params: LeafParams) {
  const lib = X509();
  return lib.X509CertificateGenerator.create({
    // An empty subject makes the SAN extension the only name, so it must be critical (RFC 5280).
    subject: [],
    issuer: new lib.X509Certificate(ca.certPem).subjectName,
    publicKey: params.publicKey,
    signingKey: ca.key.privateKey,
    signingAlgorithm: ca.key.algorithm,
    serialNumber: serialNumber().toString('hex'),
    notBefore: new Date(params.now.getTime() - BACKDATE_MS),
    notAfter: params.notAfter,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(
        lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new lib.ExtendedKeyUsageExtension([
        lib.ExtendedKeyUsage.serverAuth,
        lib.ExtendedKeyUsage.clientAuth,
      ]),
      await lib.AuthorityKeyIdentifierExtension.create(ca.key.publicKey),
      new lib.SubjectAlternativeNameExtension(params.names, true),
    ],
  });
}

/** 16 random bytes with the top bit clear: a positive serial, unique in practice. */
function serialNumber(): Buffer {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes);
}
