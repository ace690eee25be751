/**
 * A plug-in CA: a directory shaped like istiod's `cacerts` secret, the mesh's own signing
 * certificate (often an intermediate under an offline root). The mock signs with it as istiod
 * does, so sidecars that trust the mesh's root accept the mock, and the certificates it issues
 * chain to that root. The directory is only read: its key never leaves it.
 */
import { createPrivateKey, type X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem, Result } from '../util/problems.js';
import { foreignTlsDirProblems } from './dir-owner.js';
import { signingKeyFromPem } from './keys.js';
import { chainProblem, readCertificates, samePublicKey } from './pem-checks.js';
import type { CertificateAuthority } from './pki.js';

/** istiod's names for the files of its `cacerts` secret. */
export const CACERTS_FILES = Object.freeze({
  caCert: 'ca-cert.pem',
  caKey: 'ca-key.pem',
  rootCert: 'root-cert.pem',
  certChain: 'cert-chain.pem',
});

export interface PluginCa {
  /** The mesh's root: what proxies trust. */
  rootCertPem: string;
  /** `ca-cert.pem` with its key, and `cert-chain.pem` after every certificate it signs. */
  ca: CertificateAuthority;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads and checks a `cacerts` directory; every problem names its file. */
export async function loadPluginCa(dir: string): Promise<Result<PluginCa>> {
  const path = (name: keyof typeof CACERTS_FILES) => join(dir, CACERTS_FILES[name]);
  if (!existsSync(dir)) {
    return { ok: false, problems: [{ path: dir, message: 'no such directory' }] };
  }
  const foreign = foreignTlsDirProblems(dir, Object.values(CACERTS_FILES));
  if (foreign.length > 0) return { ok: false, problems: foreign };
  const problems: Problem[] = [];
  const read = (name: keyof typeof CACERTS_FILES, required: boolean) => {
    const file = path(name);
    if (existsSync(file)) return readFileSync(file, 'utf8');
    if (required) {
      problems.push({
        path: file,
        message:
          'is missing: a cacerts directory holds ca-cert.pem, ca-key.pem, root-cert.pem and cert-chain.pem, as istiod reads them',
      });
    }
    return undefined;
  };
  const [caCertPem, caKeyPem, rootCertPem] = [
    read('caCert', true),
    read('caKey', true),
    read('rootCert', true),
  ];
  const chainText = read('certChain', false);
  if (caCertPem === undefined || caKeyPem === undefined || rootCertPem === undefined) {
    return { ok: false, problems };
  }
  const first = (name: keyof typeof CACERTS_FILES, pem: string) => {
    try {
      const [cert] = readCertificates(pem);
      if (cert) return cert;
      problems.push({ path: path(name), message: 'holds no certificate' });
    } catch (err) {
      problems.push({ path: path(name), message: reason(err) });
    }
    return undefined;
  };
  const caCert = first('caCert', caCertPem);
  const root = first('rootCert', rootCertPem);
  if (!caCert || !root) return { ok: false, problems };
  if (!caCert.ca) {
    problems.push({ path: path('caCert'), message: 'is not a CA certificate (CA:TRUE)' });
  }
  const chainPem = chainText ?? defaultChain(caCert, root, caCertPem, rootCertPem);
  checkChain(chainPem, caCert, root, path('certChain'), problems);
  let key;
  try {
    key = await signingKeyFromPem(caKeyPem);
    if (!samePublicKey(createPrivateKey(caKeyPem), caCert.publicKey)) {
      problems.push({ path: path('caKey'), message: 'is not the key of ca-cert.pem' });
    }
  } catch (err) {
    problems.push({ path: path('caKey'), message: reason(err) });
  }
  if (problems.length > 0 || !key) return { ok: false, problems };
  return { ok: true, value: { rootCertPem, ca: { certPem: caCertPem, key, chainPem } } };
}

/** Without cert-chain.pem: ca-cert.pem, then the root when it is not the root itself. */
function defaultChain(
  caCert: X509Certificate,
  root: X509Certificate,
  caCertPem: string,
  rootCertPem: string,
): string {
  const own = `${caCertPem.trim()}\n`;
  return caCert.fingerprint256 === root.fingerprint256 ? own : `${own}${rootCertPem.trim()}\n`;
}

/** cert-chain.pem starts at ca-cert.pem, each certificate signed by the next, up to the root. */
function checkChain(
  chainPem: string,
  caCert: X509Certificate,
  root: X509Certificate,
  file: string,
  problems: Problem[],
): void {
  let chain: X509Certificate[];
  try {
    chain = readCertificates(chainPem);
  } catch (err) {
    problems.push({ path: file, message: reason(err) });
    return;
  }
  if (chain[0]?.fingerprint256 !== caCert.fingerprint256) {
    problems.push({ path: file, message: 'does not start with ca-cert.pem' });
    return;
  }
  const broken = chainProblem(chain, root);
  if (broken) problems.push({ path: file, message: broken });
}
