/**
 * The frame every certificate the mock writes shares (RFC 5280 §4.1): a v3 TBSCertificate
 * from its fields and extensions, signed with SHA-256 by the issuer's key in node's thread
 * pool. root-cert.ts (the self-signed root) and leaf-cert.ts (what the CA signs) fill it.
 */
import { KeyObject, sign } from 'node:crypto';
import {
  bitString,
  explicit,
  NULL,
  octetString,
  oid,
  sequence,
  smallInteger,
  time,
  TRUE,
  unsignedInteger,
} from './der.js';
import type { CryptoKey, SigningAlgorithm } from './keys.js';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

export interface CertificateFields {
  /** A positive serial number, big-endian. */
  serial: Buffer;
  /** The issuer's and the subject's names, DER. */
  issuer: Buffer;
  subject: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** The certified key's SubjectPublicKeyInfo, DER. */
  spki: Buffer;
  extensions: Buffer[];
}

/** An extension: its id, whether it is critical, and its value's DER. */
export function extension(id: string, value: Buffer, critical: boolean): Buffer {
  return critical
    ? sequence(oid(id), TRUE, octetString(value))
    : sequence(oid(id), octetString(value));
}

/** The certificate's DER, signed by `signer` (ECDSA or RSA PKCS #1 v1.5, SHA-256). */
export async function signedCertificate(
  fields: CertificateFields,
  signer: { privateKey: CryptoKey; algorithm: SigningAlgorithm },
): Promise<Buffer> {
  const algorithm =
    signer.algorithm.name === 'RSASSA-PKCS1-v1_5'
      ? sequence(oid(SHA256_WITH_RSA), NULL)
      : sequence(oid(ECDSA_WITH_SHA256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(fields.serial),
    algorithm,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.spki,
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = await new Promise<Buffer>((resolve, reject) =>
    sign(
      'sha256',
      tbs,
      { key: KeyObject.from(signer.privateKey), dsaEncoding: 'der' },
      (err, signed) => (err ? reject(err) : resolve(signed)),
    ),
  );
  return sequence(tbs, algorithm, bitString(signature));
}
