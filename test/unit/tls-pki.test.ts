/**
 * The certificates the mock makes, read back with node:crypto (an independent X.509 parser):
 * a CA root, istiod's serving certificate with its names, and workload certificates signed
 * from EC and RSA CSRs; and the keys a user's directory may hold.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingKeyFromPem } from '../../src/tls/keys.js';
import { parseCsr } from '../../src/tls/csr.js';
import {
  createRootCa,
  issueServingCertificate,
  signWorkloadCertificate,
} from '../../src/tls/pki.js';
import { servingHosts } from '../../src/ca/security-options.js';

async function csrFor(pem: string): Promise<string> {
  const key = await signingKeyFromPem(pem);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=ignored',
    keys: { privateKey: key.privateKey, publicKey: key.publicKey } as never,
    signingAlgorithm: key.algorithm,
  });
  return csr.toString('pem');
}

describe('root CA', () => {
  it('is a self-signed CA for the trust domain, valid for ten years', async () => {
    const ca = await createRootCa('cluster.local');
    const root = new X509Certificate(ca.certPem);
    expect(root.ca).toBe(true);
    expect(root.subject).toBe('O=cluster.local');
    expect(root.checkIssued(root) && root.verify(root.publicKey)).toBe(true);
    const years = (Date.parse(root.validTo) - Date.now()) / (365 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(9.9);
    expect(root.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
  });
});

describe('serving certificate', () => {
  it("names istiod's service, localhost and the loopback addresses, and is signed by the root", async () => {
    const ca = await createRootCa('cluster.local');
    const serving = await issueServingCertificate(
      ca,
      servingHosts({ dir: undefined, hosts: ['mock.test'] }),
    );
    const cert = new X509Certificate(serving.certPem);
    const root = new X509Certificate(ca.certPem);
    expect(cert.subjectAltName?.split(', ')).toEqual([
      'DNS:istiod.istio-system.svc',
      'DNS:localhost',
      'IP Address:127.0.0.1',
      'IP Address:0:0:0:0:0:0:0:1',
      'DNS:mock.test',
    ]);
    expect(cert.checkHost('istiod.istio-system.svc')).toBe('istiod.istio-system.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIssued(root) && cert.verify(root.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkPrivateKey(createPrivateKey(serving.keyPem))).toBe(true);
  });
});

describe('workload certificates', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  it.each([
    ['EC P-256', ec.export({ type: 'sec1', format: 'pem' }).toString()],
    ['RSA 2048 (Istio’s default)', rsa.export({ type: 'pkcs1', format: 'pem' }).toString()],
  ])('certifies the key of a %s CSR with the given SPIFFE id only', async (_kind, keyPem) => {
    const ca = await createRootCa('cluster.local');
    const parsed = parseCsr(await csrFor(keyPem));
    if (!parsed.ok) throw new Error(parsed.message);
    const spiffe = 'spiffe://cluster.local/ns/shop/sa/orders';
    const leaf = new X509Certificate(
      await signWorkloadCertificate(ca, parsed.csr, [spiffe], 3600_000),
    );
    expect(leaf.subjectAltName).toBe(`URI:${spiffe}`);
    expect(leaf.subject ?? '').toBe(''); // an empty subject: the SPIFFE id is the only name
    expect(leaf.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
  });

  it("reports CSRs it cannot read with istiod's messages", () => {
    expect(parseCsr('hello')).toEqual({
      ok: false,
      message: 'certificate signing request is not properly encoded',
    });
    const junk = '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n';
    expect(parseCsr(junk)).toEqual({
      ok: false,
      message: 'failed to parse X.509 certificate signing request',
    });
  });
});

describe('keys from PEM', () => {
  it('reads PKCS #1, SEC 1 and PKCS #8 keys; refuses others, saying what they are', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const rsaKey = await signingKeyFromPem(rsa.export({ type: 'pkcs1', format: 'pem' }).toString());
    expect(rsaKey.algorithm.name).toBe('RSASSA-PKCS1-v1_5');
    const ecKey = await signingKeyFromPem(ec.export({ type: 'sec1', format: 'pem' }).toString());
    expect(ecKey.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-256' });
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    await expect(signingKeyFromPem(ed.toString())).rejects.toThrow(
      'holds a key of type ed25519; expected RSA or ECDSA (P-256 or P-384)',
    );
    await expect(signingKeyFromPem('nope')).rejects.toThrow('is not a PEM private key');
  });
});
