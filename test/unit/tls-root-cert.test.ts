/**
 * The root certificate written in DER without the X.509 library (src/tls/root-cert.ts), read
 * back with node:crypto and with that library: the same fields the library wrote, a key
 * identifier the certificates it signs point back to, and DER's minimal encodings.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oid, time, tlv, unsignedInteger } from '../../src/tls/der.js';
import { generateSigningKey } from '../../src/tls/keys.js';
import { createRootCa, issueServingCertificate } from '../../src/tls/pki.js';
import { selfSignedRoot } from '../../src/tls/root-cert.js';

describe('self-signed root', () => {
  it('is a v3 CA with critical basic constraints and key usage, self-verifying', async () => {
    const key = await generateSigningKey();
    const der = await selfSignedRoot({
      organization: 'example.org',
      serial: Buffer.from('00ff01', 'hex'),
      notBefore: new Date('2026-01-02T03:04:05Z'),
      notAfter: new Date('2051-01-01T00:00:00Z'),
      key,
    });
    const node = new X509Certificate(der);
    expect(node.subject).toBe('O=example.org');
    expect(node.issuer).toBe('O=example.org');
    expect(node.ca).toBe(true);
    expect(node.serialNumber).toBe('FF01');
    // Positive, so one 0 byte ahead of 0xff (its top bit set), and only that one.
    expect(der.includes(Buffer.from('020300ff01', 'hex'))).toBe(true);
    expect(node.verify(node.publicKey)).toBe(true);
    expect(new Date(node.validFrom).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(new Date(node.validTo).toISOString()).toBe('2051-01-01T00:00:00.000Z'); // GeneralizedTime
    const cert = new x509.X509Certificate(der);
    const basic = cert.getExtension(x509.BasicConstraintsExtension);
    expect(basic?.ca).toBe(true);
    expect(basic?.critical).toBe(true);
    const usage = cert.getExtension(x509.KeyUsagesExtension);
    expect(usage?.critical).toBe(true);
    expect(usage?.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
  });

  it("has the key identifier the certificates it signs name as their authority's", async () => {
    const ca = await createRootCa('cluster.local');
    const serving = await issueServingCertificate(ca, ['localhost']);
    const root = new x509.X509Certificate(ca.certPem);
    const leaf = new x509.X509Certificate(serving.certPem);
    const ski = root.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    expect(ski).toMatch(/^[0-9a-f]{40}$/);
    expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(ski);
    expect(leaf.issuer).toBe(root.subject);
    expect(new X509Certificate(serving.certPem).checkIssued(new X509Certificate(ca.certPem))).toBe(
      true,
    );
  });

  it('refuses a key it cannot sign with', async () => {
    const key = await generateSigningKey();
    const rsa = { ...key, algorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const };
    await expect(
      selfSignedRoot({
        organization: 'x',
        serial: Buffer.from([1]),
        notBefore: new Date(),
        notAfter: new Date(),
        key: rsa,
      }),
    ).rejects.toThrow('a root certificate needs an ECDSA P-256 key');
  });
});

describe('DER writers', () => {
  it('encode lengths, object identifiers, integers and times minimally', () => {
    expect(tlv(0x04, Buffer.alloc(3)).toString('hex')).toBe('0403000000');
    expect(tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex')).toBe('0481c8');
    expect(tlv(0x04, Buffer.alloc(300)).subarray(0, 4).toString('hex')).toBe('0482012c');
    expect(oid('1.2.840.10045.4.3.2').toString('hex')).toBe('06082a8648ce3d040302');
    expect(oid('2.5.29.19').toString('hex')).toBe('0603551d13');
    expect(unsignedInteger(Buffer.from('000001', 'hex')).toString('hex')).toBe('020101');
    expect(unsignedInteger(Buffer.from('0080', 'hex')).toString('hex')).toBe('02020080');
    expect(unsignedInteger(Buffer.from('00', 'hex')).toString('hex')).toBe('020100');
    expect(time(new Date('2049-12-31T23:59:59Z')).toString('ascii', 2)).toBe('491231235959Z');
    expect(time(new Date('2050-01-01T00:00:00Z')).toString('ascii', 2)).toBe('20500101000000Z');
  });
});
