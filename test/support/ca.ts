/**
 * A CA client for tests, as a pod's pilot-agent would use it: a fresh key and CSR, the token
 * in `authorization: Bearer …`, and the outcome as a value (chain, or status and reason).
 */
import 'reflect-metadata';
import * as grpc from '@grpc/grpc-js';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { createCaClient, type CaClient } from '../../src/ca/ca-proto.js';
import { REASON_TRAILER } from '../../src/ca/ca-service.js';

export type CsrOutcome =
  | { ok: true; chain: string[] }
  | { ok: false; code: grpc.status; details: string; reason: string | undefined };

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A PEM CSR for a new P-256 key (the subject is ignored by the CA, as by istiod). */
export async function makeCsr(subject = 'O=cluster.local'): Promise<string> {
  return (await makeKeyAndCsr(subject)).csr;
}

/** A new P-256 key (PKCS#8 PEM) and a CSR for it: what a client needs for mTLS once signed. */
export async function makeKeyAndCsr(
  subject = 'O=cluster.local',
): Promise<{ csr: string; keyPem: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys: keys as never,
    signingAlgorithm: EC,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const body = pkcs8.toString('base64').replace(/(.{64})/g, '$1\n');
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`;
  return { csr: csr.toString('pem'), keyPem };
}

/** A client for `address`, over TLS when given the root certificate to trust. */
export function caClient(address: string, rootCert?: string): CaClient {
  if (rootCert === undefined) return createCaClient(address, grpc.credentials.createInsecure());
  return createCaClient(address, grpc.credentials.createSsl(Buffer.from(rootCert)), {
    // The serving certificate names istiod.istio-system.svc; connect by IP, verify that name.
    'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
  });
}

/** `authorization: Bearer <token>`, as pilot-agent sends its pod's token. */
export function bearer(token: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export function createCertificate(
  client: CaClient,
  request: { csr: string; validity_duration?: number },
  token?: string,
  timeoutMs = 10_000,
): Promise<CsrOutcome> {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    client.CreateCertificate(
      request,
      metadata,
      { deadline: Date.now() + timeoutMs },
      (err, response) => {
        if (err) {
          const reason = err.metadata?.get(REASON_TRAILER)[0];
          resolve({ ok: false, code: err.code, details: err.details, reason: reason?.toString() });
        } else resolve({ ok: true, chain: response?.cert_chain ?? [] });
      },
    );
  });
}
