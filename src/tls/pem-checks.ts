/**
 * Checks on PEM files a user put in the TLS directory, each failure phrased for that user:
 * which file, and what is wrong with it. Done with node:crypto's X509Certificate, which is
 * enough to read and verify (not to issue).
 */
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates in a PEM text, in order; throws a message-bearing Error when there are none. */
export function readCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new Error('holds no PEM certificate');
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new Error(`certificate ${i + 1} is not a valid X.509 certificate`);
    }
  });
}

/** Whether two keys are the same public key. */
export function samePublicKey(a: KeyObject, b: KeyObject): boolean {
  const der = (key: KeyObject) =>
    (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
  return der(a).equals(der(b));
}

/**
 * Why `chain` (leaf first) does not lead to `root`, or undefined when it does: each
 * certificate must be signed by the next, and the last must be the root or signed by it.
 */
export function chainProblem(chain: readonly X509Certificate[], root: X509Certificate) {
  for (let i = 0; i + 1 < chain.length; i++) {
    const [cert, issuer] = [chain[i], chain[i + 1]] as [X509Certificate, X509Certificate];
    if (!cert.verify(issuer.publicKey)) {
      return `certificate ${i + 1} is not signed by certificate ${i + 2}`;
    }
  }
  const last = chain.at(-1);
  if (!last || last.fingerprint256 === root.fingerprint256) return undefined;
  return last.verify(root.publicKey) ? undefined : 'is not signed by the root certificate';
}

/** A warning when `cert` is not valid at `now` (Envoy would refuse it). */
export function validityWarning(file: string, cert: X509Certificate, now: Date) {
  if (new Date(cert.validTo) < now) return `${file} expired on ${cert.validTo}`;
  if (new Date(cert.validFrom) > now) return `${file} is not valid before ${cert.validFrom}`;
  return undefined;
}
