/**
 * The leaf certificates the CA writes in DER (src/tls/leaf-cert.ts) and the CSRs it reads
 * (src/tls/csr.ts), checked against two independent X.509 implementations: node:crypto reads
 * the certificates and verifies their signatures, and @peculiar/x509 reads their extensions
 * and makes the CSRs in every algorithm Go's crypto/x509 verifies.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkCsrSignature, parseCsr } from '../../src/tls/csr.js';
import { signingKeyFromPem } from '../../src/tls/keys.js';
import { ipBytes } from '../../src/tls/leaf-cert.js';
import {
  createRootCa,
  issueServingCertificate,
  issueWorkloadCertificate,
  signWorkloadCertificate,
} from '../../src/tls/pki.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const subtle = webcrypto.subtle;
const SPIFFE = 'spiffe://cluster.local/ns/shop/sa/orders';

interface Algorithm {
  name: string;
  namedCurve?: string;
  hash?: string;
  saltLength?: number;
  publicExponent?: Uint8Array;
  modulusLength?: number;
}

async function csrIn(algorithm: Algorithm): Promise<string> {
  const keys = await subtle.generateKey(algorithm as never, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=ignored',
    keys,
    signingAlgorithm: algorithm,
  });
  return csr.toString('pem');
}

const RSA = { publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

describe('CSRs', () => {
  it.each<[string, Algorithm]>([
    ['ECDSA P-256, SHA-256', { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }],
    ['ECDSA P-384, SHA-384', { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' }],
    ['RSA PKCS #1 v1.5, SHA-256', { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', ...RSA }],
    ['RSA-PSS, SHA-256', { name: 'RSA-PSS', hash: 'SHA-256', saltLength: 32, ...RSA }],
    ['Ed25519', { name: 'Ed25519' }],
  ])('%s: parsed, its signature holds; one bit changed, it does not', async (_, algorithm) => {
    const pem = await csrIn(algorithm);
    const parsed = parseCsr(pem);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(await checkCsrSignature(parsed.csr)).toBeUndefined();
    const forged = { ...parsed.csr, signature: Buffer.from(parsed.csr.signature) };
    const last = forged.signature.length - 1;
    forged.signature[last] = (forged.signature[last] ?? 0) ^ 1;
    expect(await checkCsrSignature(forged)).toMatch(/verification (error|failure)$/);
  });

  it("refuses what is not a CSR in istiod's words, whatever the bytes", () => {
    const pem = (der: Buffer) =>
      `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    expect(parseCsr('no pem here')).toEqual({
      ok: false,
      message: 'certificate signing request is not properly encoded',
    });
    for (const der of [
      Buffer.alloc(0),
      Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), // a length past the end
      Buffer.from([0x30, 0x80, 0x00, 0x00]), // indefinite length
      Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]), // a sequence of one integer
      Buffer.from([0x1f, 0x81, 0x00]), // a high tag number
    ]) {
      expect(parseCsr(pem(der))).toEqual({
        ok: false,
        message: 'failed to parse X.509 certificate signing request',
      });
    }
  });
});

describe('leaf certificates', () => {
  it('a workload certificate: the SPIFFE id its only name, critical, with the usages istiod gives', async () => {
    const ca = await createRootCa('cluster.local');
    const issued = await issueWorkloadCertificate(ca, [SPIFFE], 3_600_000);
    const node = new X509Certificate(issued.certPem);
    const root = new X509Certificate(ca.certPem);
    expect(node.subject ?? '').toBe('');
    expect(node.issuer).toBe('O=cluster.local');
    expect(node.subjectAltName).toBe(`URI:${SPIFFE}`);
    expect(node.ca).toBe(false);
    expect(node.checkIssued(root) && node.verify(root.publicKey)).toBe(true);
    expect(node.keyUsage?.sort()).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    const lib = new x509.X509Certificate(issued.certPem);
    const basic = lib.getExtension(x509.BasicConstraintsExtension);
    expect([basic?.ca, basic?.critical]).toEqual([false, true]);
    const usage = lib.getExtension(x509.KeyUsagesExtension);
    expect(usage?.usages).toBe(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    );
    expect(usage?.critical).toBe(true);
    expect(lib.getExtension(x509.SubjectAlternativeNameExtension)?.critical).toBe(true);
    const authority = lib.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    const subject = new x509.X509Certificate(ca.certPem).getExtension(
      x509.SubjectKeyIdentifierExtension,
    )?.keyId;
    expect(authority).toBeDefined();
    expect(authority).toBe(subject);
    const lifetime = Date.parse(node.validTo) - Date.parse(node.validFrom);
    expect(lifetime).toBe(3_600_000 + 60_000); // backdated a minute
  });

  it('signed by a CA whose key is RSA (a cacerts directory), with sha256WithRSAEncryption', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    // A root certificate for the RSA key: the mock's own root writer takes EC keys only, so
    // the library writes this one.
    const key = await signingKeyFromPem(rsa.export({ type: 'pkcs8', format: 'pem' }).toString());
    const rootCert = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'O=rsa.example',
      keys: { privateKey: key.privateKey, publicKey: key.publicKey },
      signingAlgorithm: key.algorithm,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    const ca = { certPem: rootCert.toString('pem'), key };
    const parsed = parseCsr(await csrIn({ name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }));
    if (!parsed.ok) throw new Error(parsed.message);
    const leaf = new X509Certificate(
      await signWorkloadCertificate(ca, parsed.csr, [SPIFFE], 60_000),
    );
    expect(leaf.issuer).toBe('O=rsa.example');
    expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(new x509.X509Certificate(leaf.raw).signatureAlgorithm).toMatchObject({
      name: 'RSASSA-PKCS1-v1_5',
      hash: { name: 'SHA-256' },
    });
  });

  it('serving names: DNS and IPv4/IPv6 addresses, as node reads them back', async () => {
    const ca = await createRootCa('cluster.local');
    const hosts = ['istiod.istio-system.svc', '10.1.2.3', '::1', 'fe80::1:2', '::ffff:1.2.3.4'];
    const serving = await issueServingCertificate(ca, hosts);
    expect(new X509Certificate(serving.certPem).subjectAltName?.split(', ')).toEqual([
      'DNS:istiod.istio-system.svc',
      'IP Address:10.1.2.3',
      'IP Address:0:0:0:0:0:0:0:1',
      'IP Address:FE80:0:0:0:0:0:1:2',
      'IP Address:0:0:0:0:0:FFFF:102:304',
    ]);
    expect(ipBytes('2001:db8::8a2e:370:7334').toString('hex')).toBe(
      '20010db80000000000008a2e03707334',
    );
  });
});
