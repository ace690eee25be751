/**
 * Reading the files of a TLS directory a user may have filled: each is checked against the
 * others (the CA key is the root's key, the serving key is the serving certificate's, the
 * serving chain leads to the root), and every problem names its file.
 */
import { createPrivateKey, type KeyObject, type X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Problem } from '../util/problems.js';
import { signingKeyFromPem } from './keys.js';
import { chainProblem, readCertificates, samePublicKey, validityWarning } from './pem-checks.js';
import type { CertificateAuthority } from './pki.js';

/** The files of a TLS directory. The first three are named as Istio names them. */
export const TLS_FILES = Object.freeze({
  rootCert: 'root-cert.pem',
  certChain: 'cert-chain.pem',
  key: 'key.pem',
  /** The CA's signing key (the key of root-cert.pem), as in Istio's `cacerts` secret. */
  caKey: 'ca-key.pem',
  /** The ES256 key test tokens are signed with (ours: `mock-istiod token --tls-dir`). */
  jwtKey: 'jwt-key.pem',
});

export type TlsFileName = keyof typeof TLS_FILES;

type PathOf = (name: TlsFileName) => string;

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The CA made of root-cert.pem and ca-key.pem, or undefined (with a note or a problem). */
export async function loadCa(
  rootCertPem: string,
  caKeyPem: string | undefined,
  path: PathOf,
  problems: Problem[],
  notes: string[],
): Promise<CertificateAuthority | undefined> {
  let root;
  try {
    root = readCertificates(rootCertPem)[0];
  } catch (err) {
    problems.push({ path: path('rootCert'), message: reason(err) });
    return undefined;
  }
  if (!root) return undefined;
  if (caKeyPem === undefined) {
    notes.push(
      `${path('caKey')} is missing: the CA service cannot sign (CreateCertificate answers INTERNAL)`,
    );
    return undefined;
  }
  if (!root.ca) {
    problems.push({ path: path('rootCert'), message: 'is not a CA certificate (CA:TRUE)' });
    return undefined;
  }
  try {
    const key = await signingKeyFromPem(caKeyPem);
    if (!samePublicKey(createPrivateKey(caKeyPem), root.publicKey)) {
      problems.push({ path: path('caKey'), message: 'is not the key of root-cert.pem' });
      return undefined;
    }
    return { certPem: root.toString(), key };
  } catch (err) {
    problems.push({ path: path('caKey'), message: reason(err) });
    return undefined;
  }
}

export interface ServingFiles {
  rootCertPem: string;
  certChainPem: string | undefined;
  keyPem: string | undefined;
  /** Names the serving certificate should carry; a missing one is noted (Envoy may refuse it). */
  hosts: readonly string[];
}

/** Checks a serving certificate chain and key found in the directory. */
export function loadServing(
  files: ServingFiles,
  path: PathOf,
  problems: Problem[],
  notes: string[],
  now: Date,
): void {
  const { certChainPem, keyPem } = files;
  if (certChainPem === undefined && keyPem === undefined) {
    problems.push({
      path: path('certChain'),
      message:
        'is missing, and so is key.pem: without ca-key.pem the mock cannot issue a serving certificate; add the pair or ca-key.pem',
    });
    return;
  }
  if (certChainPem === undefined || keyPem === undefined) {
    const [missing, there] =
      certChainPem === undefined ? ['certChain', 'key.pem'] : ['key', 'cert-chain.pem'];
    problems.push({
      path: path(missing as TlsFileName),
      message: `is missing while ${there} is there: the two go together`,
    });
    return;
  }
  try {
    checkServingPair(readCertificates(certChainPem), keyPem, { files, path, problems, notes, now });
  } catch (err) {
    problems.push({ path: path('certChain'), message: reason(err) });
  }
}

/** The key fits the leaf, the chain leads to the root, the leaf is in date and names the hosts. */
function checkServingPair(
  chain: X509Certificate[],
  keyPem: string,
  check: {
    files: ServingFiles;
    path: PathOf;
    problems: Problem[];
    notes: string[];
    now: Date;
  },
): void {
  const { files, path, problems, notes, now } = check;
  const leaf = chain[0] as X509Certificate;
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    problems.push({ path: path('key'), message: 'is not a PEM private key' });
    return;
  }
  if (!leaf.checkPrivateKey(key)) {
    const message = 'is not the key of the first certificate in cert-chain.pem';
    problems.push({ path: path('key'), message });
  }
  const root = readCertificates(files.rootCertPem)[0];
  const broken = root ? chainProblem(chain, root) : undefined;
  if (broken) problems.push({ path: path('certChain'), message: broken });
  const warning = validityWarning(path('certChain'), leaf, now);
  if (warning) notes.push(warning);
  for (const host of files.hosts) {
    const named = isIP(host) !== 0 ? leaf.checkIP(host) : leaf.checkHost(host);
    if (named === undefined) {
      notes.push(
        `${path('certChain')} does not name ${host}: delete it and key.pem to have one made that does`,
      );
    }
  }
}

/** The token signing key, when the file is there; it must be EC P-256 (tokens are ES256). */
export function loadJwtKey(
  pem: string | undefined,
  path: PathOf,
  problems: Problem[],
): KeyObject | undefined {
  if (pem === undefined) return undefined;
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
      return key;
    }
  } catch {
    // Reported below, as for a key of the wrong kind.
  }
  problems.push({
    path: path('jwtKey'),
    message: 'expected an EC P-256 private key in PEM (tokens are ES256)',
  });
  return undefined;
}
