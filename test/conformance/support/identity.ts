/**
 * The suite's TLS: one CA that both servers trust, made with the mock's own code at suite
 * start and written with Istio's file names, so that istiod-ref (`-cert -key -client-ca`) and
 * the mock (`tls: { dir }`) serve the same certificate and verify the same client
 * certificates. A case's stream can then show a SPIFFE identity as a proxy's pilot-agent does,
 * by a client certificate signed by that CA.
 */
import * as grpc from '@grpc/grpc-js';
import { join } from 'node:path';
import { ISTIOD_SERVICE_NAME, servingHosts } from '../../../src/ca/security-options.js';
import { DEFAULT_TOKEN_AUDIENCE, mintToken } from '../../../src/ca/service-account-token.js';
import { parseCsr } from '../../../src/tls/csr.js';
import { signWorkloadCertificate, type CertificateAuthority } from '../../../src/tls/pki.js';
import { TLS_FILES } from '../../../src/tls/tls-files.js';
import { prepareTlsMaterial } from '../../../src/tls/tls-material.js';
import { makeKeyAndCsr } from '../../support/fixtures/ca.js';

const CLIENT_CERT_LIFETIME_MS = 3_600_000;

export interface SuiteTls {
  /** The directory holding `root-cert.pem`, `cert-chain.pem`, `key.pem`, `ca-key.pem`. */
  dir: string;
  /** The files istiod-ref is started with. */
  reference: { cert: string; key: string; clientCa: string };
  /**
   * Channel credentials for a TLS stream: with a client certificate carrying `identity` (a
   * SPIFFE URI), or none when `identity` is undefined.
   */
  credentials(identity: string | undefined): Promise<grpc.ChannelCredentials>;
  /** A pod's service account token signed with the key the mock trusts (istiod-ref trusts none). */
  token(namespace: string, serviceAccount: string): string;
}

/** The channel options of every TLS stream: the serving certificate names istiod's Service. */
export const TLS_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.ssl_target_name_override': ISTIOD_SERVICE_NAME,
};

export async function prepareSuiteTls(dir: string): Promise<SuiteTls> {
  const hosts = servingHosts({ dir, hosts: [] });
  const prepared = await prepareTlsMaterial({ dir, hosts, trustDomain: 'cluster.local' });
  if (!prepared.ok) throw new Error(`suite TLS: ${JSON.stringify(prepared.problems)}`);
  const material = prepared.value;
  const ca = material.ca;
  if (!ca) throw new Error('suite TLS: the directory has no CA key');
  const root = Buffer.from(material.rootCertPem);
  return {
    dir,
    reference: {
      cert: join(dir, TLS_FILES.certChain),
      key: join(dir, TLS_FILES.key),
      clientCa: join(dir, TLS_FILES.rootCert),
    },
    token(namespace, serviceAccount) {
      const request = {
        namespace,
        serviceAccount,
        audiences: [DEFAULT_TOKEN_AUDIENCE],
        ttlSeconds: 3600,
      };
      return mintToken(material.jwtKey, request).token;
    },
    async credentials(identity) {
      if (identity === undefined) return grpc.credentials.createSsl(root);
      const client = await clientCertificate(ca, identity);
      return grpc.credentials.createSsl(
        root,
        Buffer.from(client.keyPem),
        Buffer.from(client.certPem),
      );
    },
  };
}

/** A fresh key and a certificate for it naming `identity`, as pilot-agent gets from its CA. */
async function clientCertificate(
  ca: CertificateAuthority,
  identity: string,
): Promise<{ keyPem: string; certPem: string }> {
  const { csr, keyPem } = await makeKeyAndCsr();
  const parsed = parseCsr(csr);
  if (!parsed.ok) throw new Error(`suite TLS: ${parsed.message}`);
  const certPem = await signWorkloadCertificate(
    ca,
    parsed.csr,
    [identity],
    CLIENT_CERT_LIFETIME_MS,
  );
  return { keyPem, certPem };
}
