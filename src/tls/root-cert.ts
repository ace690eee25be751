/**
 * The mock's self-signed root certificate, written in DER with node:crypto. Every mock makes
 * one at start (its CA service runs beside ADS even without TLS).
 *
 * Subject and issuer `O=<trust domain>`, CA:TRUE and key usage keyCertSign + cRLSign (both
 * critical), a subject key identifier (the SHA-1 of the public key's bits, which the
 * certificates leaf-cert.ts signs carry as their authority key identifier), ECDSA P-256 with
 * SHA-256.
 */
import { createHash, KeyObject, sign, webcrypto } from 'node:crypto';
import {
  bitString,
  explicit,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  TRUE,
  unsignedInteger,
  utf8String,
} from './der.js';
import type { SigningKey } from './keys.js';

const OIDS = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
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
  const algorithm = sequence(oid(OIDS.ecdsaWithSha256));
  const name = sequence(set(sequence(oid(OIDS.organization), utf8String(params.organization))));
  const critical = (id: string, value: Buffer) => sequence(oid(id), TRUE, octetString(value));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(params.serial),
    algorithm,
    name,
    sequence(time(params.notBefore), time(params.notAfter)),
    name,
    spki,
    explicit(
      3,
      sequence(
        critical(OIDS.basicConstraints, sequence(TRUE)),
        critical(OIDS.keyUsage, CA_KEY_USAGE),
        sequence(oid(OIDS.subjectKeyIdentifier), octetString(octetString(keyId))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, {
    key: KeyObject.from(key.privateKey),
    dsaEncoding: 'der',
  });
  return sequence(tbs, algorithm, bitString(signature));
}
