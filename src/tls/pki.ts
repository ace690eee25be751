/**
 * The certificates of a mock istiod, made the way istiod's self-signed CA makes them: a root
 * CA (`O=<trust domain>`, ten years), istiod's serving certificate for
 * `istiod.istio-system.svc` (and, so that a local Envoy can connect, `localhost`, 127.0.0.1
 * and ::1), and workload certificates signed from a CSR with the caller's SPIFFE identity as
 * the only subject alternative name. Written in DER with node:crypto (root-cert.ts,
 * leaf-cert.ts; CSRs are read by csr.ts): no X.509 library is loaded, so the first
 * certificate costs what every other does.
 */
import { webcrypto } from 'node:crypto';
import type { ParsedCsr } from './csr.js';
import { generateSigningKey, privateKeyToPem, toPem, type SigningKey } from './keys.js';
import { hostName, signLeafCertificate, type AltName } from './leaf-cert.js';
import { selfSignedRoot } from './root-cert.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a minute in the past, so that a peer whose clock lags accepts them. */
const BACKDATE_MS = 60 * 1000;

export const ROOT_VALIDITY_MS = 10 * 365 * DAY_MS;
export const SERVING_VALIDITY_MS = 365 * DAY_MS;

/** A certificate authority able to sign: its certificate and key. */
export interface CertificateAuthority {
  certPem: string;
  key: SigningKey;
  /**
   * The certificates that follow one it signs, up to the root: istiod's `cert-chain.pem` of a
   * plug-in CA (`cacerts`). Undefined: its own certificate, a root.
   */
  chainPem?: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * A certificate the CA signed, followed by the CA's chain up to the root: one certificate
 * per entry, each ending in a newline, as istiod's CA service sends them.
 */
export function chainOf(ca: CertificateAuthority, leafPem: string): string[] {
  const chain = (ca.chainPem ?? ca.certPem).match(PEM_CERTIFICATE) ?? [];
  return [leafPem, ...chain].map((pem) => `${pem.trim()}\n`);
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
}

/** A new root CA with its own key. */
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
  return withNewKey(ca, hosts.map(hostName), SERVING_VALIDITY_MS, now);
}

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
  const names = uris.map((uri) => ({ uri }));
  return toPem(await signLeaf(ca, csr.spki, names, lifetimeMs, now), 'CERTIFICATE');
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
  return withNewKey(
    ca,
    uris.map((uri) => ({ uri })),
    lifetimeMs,
    now,
  );
}

async function withNewKey(
  ca: CertificateAuthority,
  names: readonly AltName[],
  lifetimeMs: number,
  now: Date,
): Promise<IssuedCertificate> {
  const key = await generateSigningKey();
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', key.publicKey));
  const der = await signLeaf(ca, spki, names, lifetimeMs, now);
  return { certPem: toPem(der, 'CERTIFICATE'), keyPem: await privateKeyToPem(key.privateKey) };
}

function signLeaf(
  ca: CertificateAuthority,
  spki: Buffer,
  names: readonly AltName[],
  lifetimeMs: number,
  now: Date,
): Promise<Buffer> {
  return signLeafCertificate(ca, {
    spki,
    names,
    serial: serialNumber(),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + lifetimeMs),
  });
}

/** 16 random bytes with the top bit clear: a positive serial, unique in practice. */
function serialNumber(): Buffer {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes);
}
