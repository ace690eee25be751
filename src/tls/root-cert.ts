/**
 * The mock's self-signed root certificate, written in DER with node:crypto. Every mock makes
 * one at start (its CA service runs beside ADS even without TLS).
 *
 * Subject and issuer `O=<trust domain>`, CA:TRUE and key usage keyCertSign + cRLSign (both
 * critical), a subject key identifier (the SHA-1 of the public key's bits, which the
 * certificates leaf-cert.ts signs carry as their authority key identifier), ECDSA P-256 with
 * SHA-256.
 */
import { createHash, webcrypto } from 'node:crypto';
import { bitString, octetString, oid, sequence, set, TRUE, utf8String } from './der.js';
import { extension, signedCertificate } from './certificate-der.js';
import type { SigningKey } from './keys.js';

const OIDS = {
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

/** keyCertSign (bit 5) and cRLSign (bit 6): 0b0000_0110, the last bit unused. */
const CA_KEY_USAGE = bitString(Buffer.from([0x06]), 1);

export interface RootCertificateParams {
  organization: string;
  /** A positive serial number, big-endian. */
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** An ECDSA P-256 key pair (the mock's own roots always have one). */
  key: SigningKey;
}

/** The DER of a self-signed root certificate for `params.key`. */
export async function selfSignedRoot(params: RootCertificateParams): Promise<Buffer> {
  const { key } = params;
  if (key.algorithm.name !== 'ECDSA' || key.algorithm.namedCurve !== 'P-256') {
    throw new Error('a root certificate needs an ECDSA P-256 key');
  }
  const subtle = webcrypto.subtle;
  const spki = Buffer.from(await subtle.exportKey('spki', key.publicKey));
  const { x = '', y = '' } = await subtle.exportKey('jwk', key.publicKey);
  // The public key's bits in the SPKI: the uncompressed point.
  const point = Buffer.concat([
    Buffer.from([0x04]),
    Buffer.from(x, 'base64url'),
    Buffer.from(y, 'base64url'),
  ]);
  const keyId = createHash('sha1').update(point).digest();
  const name = sequence(set(sequence(oid(OIDS.organization), utf8String(params.organization))));
  return signedCertificate(
    {
      serial: params.serial,
      issuer: name,
      subject: name,
      notBefore: params.notBefore,
      notAfter: params.notAfter,
      spki,
      extensions: [
        extension(OIDS.basicConstraints, sequence(TRUE), true),
        extension(OIDS.keyUsage, CA_KEY_USAGE, true),
        extension(OIDS.subjectKeyIdentifier, octetString(keyId), false),
      ],
    },
    key,
  );
}
