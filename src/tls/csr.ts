/**
 * Certificate signing requests (PKCS #10, RFC 2986) as istiod reads them: the PEM block, the
 * request's structure, its public key, and the self-signature that proves the caller holds
 * the key. Read with der-read.ts and verified with node:crypto, off the event loop; the
 * messages are istiod's (security/pkg/pki/util) and Go's crypto/x509 (`CheckSignature`).
 *
 *   CertificationRequest ::= SEQUENCE {
 *     certificationRequestInfo  SEQUENCE { version, subject, subjectPKInfo, [0] attributes },
 *     signatureAlgorithm        AlgorithmIdentifier,
 *     signature                 BIT STRING }
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import {
  childrenOf,
  DerError,
  expectTag,
  pemBlock,
  readElement,
  readOid,
  readSmallInteger,
  readWhole,
  readWholeBits,
  TAG,
  whole,
  type DerElement,
} from './der-read.js';

/** A request that parsed: the key it asks to have certified, and what its signature covers. */
export interface ParsedCsr {
  /** The SubjectPublicKeyInfo, DER, as the certificate will carry it. */
  readonly spki: Buffer;
  /** Undefined for a key algorithm Go's crypto/x509 does not know (it parses, unverifiable). */
  readonly publicKey: KeyObject | undefined;
  /** The signed part (certificationRequestInfo), DER. */
  readonly signed: Buffer;
  readonly signatureAlgorithm: string;
  /** The AlgorithmIdentifier's parameters, DER, when it has any. */
  readonly signatureParams: Buffer | undefined;
  readonly signature: Buffer;
}

export type CsrReading = { ok: true; csr: ParsedCsr } | { ok: false; message: string };

const NOT_PEM = 'certificate signing request is not properly encoded';
const NOT_CSR = 'failed to parse X.509 certificate signing request';

/** Parses a PEM CSR; the error messages are istiod's. */
export function parseCsr(pem: string): CsrReading {
  const der = pemBlock(pem, ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST']);
  if (der === undefined) return { ok: false, message: NOT_PEM };
  try {
    return { ok: true, csr: readCsr(der) };
  } catch (err) {
    if (err instanceof DerError) return { ok: false, message: NOT_CSR };
    throw err;
  }
}

/** The key algorithms Go's crypto/x509 parses (a malformed key of these fails the request). */
const KNOWN_KEYS = new Set([
  '1.2.840.113549.1.1.1', // rsaEncryption
  '1.2.840.10045.2.1', // id-ecPublicKey
  '1.3.101.112', // Ed25519
  '1.3.101.110', // X25519
  '1.2.840.10040.4.1', // DSA
]);

/** The request's key: undefined for an algorithm Go does not know; a DerError when malformed. */
function publicKeyOf(der: Buffer, spki: DerElement): KeyObject | undefined {
  const [algorithm] = childrenOf(der, spki);
  const [id] = algorithm ? childrenOf(der, expectTag(algorithm, TAG.sequence)) : [];
  if (!id) throw new DerError('no key algorithm');
  const known = KNOWN_KEYS.has(readOid(der, id));
  try {
    return createPublicKey({ key: whole(der, spki), format: 'der', type: 'spki' });
  } catch {
    if (known) throw new DerError('malformed public key');
    return undefined;
  }
}

function readCsr(der: Buffer): ParsedCsr {
  const outer = childrenOf(der, readWhole(der, TAG.sequence));
  if (outer.length !== 3) throw new DerError('a request has three parts');
  const [info, algorithm, signature] = outer as [DerElement, DerElement, DerElement];
  const fields = childrenOf(der, expectTag(info, TAG.sequence));
  if (fields.length < 3 || fields.length > 4) throw new DerError('bad request info');
  const [version, subject, spkiElement, attributes] = fields as [
    DerElement,
    DerElement,
    DerElement,
    DerElement | undefined,
  ];
  if (readSmallInteger(der, version) !== 0) throw new DerError('unknown version');
  expectTag(subject, TAG.sequence);
  expectTag(spkiElement, TAG.sequence);
  if (attributes && attributes.tag !== 0xa0) throw new DerError('bad attributes');
  const spki = Buffer.from(whole(der, spkiElement));
  const [algorithmId, params, ...extra] = childrenOf(der, expectTag(algorithm, TAG.sequence));
  if (!algorithmId || extra.length > 0) throw new DerError('bad algorithm identifier');
  return {
    spki,
    publicKey: publicKeyOf(der, spkiElement),
    signed: Buffer.from(whole(der, info)),
    signatureAlgorithm: readOid(der, algorithmId),
    signatureParams:
      params && params.tag !== TAG.null ? Buffer.from(whole(der, params)) : undefined,
    signature: Buffer.from(readWholeBits(der, signature)),
  };
}

/** How one signature algorithm is checked, and Go's words when the check fails. */
interface Verifier {
  keyType: string;
  hash: string | null;
  failure: string;
  pss?: true;
}

const RSA_FAILURE = 'crypto/rsa: verification error';
const ECDSA_FAILURE = 'x509: ECDSA verification failure';
const UNSUPPORTED = 'x509: cannot verify signature: algorithm unimplemented';

const rsa = (hash: string): Verifier => ({ keyType: 'rsa', hash, failure: RSA_FAILURE });
const ecdsa = (hash: string): Verifier => ({ keyType: 'ec', hash, failure: ECDSA_FAILURE });

/** The algorithms Go's crypto/x509 checks a CSR's signature with (SHA-1 included, as for CSRs). */
const VERIFIERS: Record<string, Verifier> = {
  '1.2.840.113549.1.1.5': rsa('sha1'),
  '1.2.840.113549.1.1.11': rsa('sha256'),
  '1.2.840.113549.1.1.12': rsa('sha384'),
  '1.2.840.113549.1.1.13': rsa('sha512'),
  '1.2.840.113549.1.1.10': { keyType: 'rsa', hash: null, failure: RSA_FAILURE, pss: true },
  '1.2.840.10045.4.1': ecdsa('sha1'),
  '1.2.840.10045.4.3.2': ecdsa('sha256'),
  '1.2.840.10045.4.3.3': ecdsa('sha384'),
  '1.2.840.10045.4.3.4': ecdsa('sha512'),
  '1.3.101.112': { keyType: 'ed25519', hash: null, failure: 'x509: Ed25519 verification failure' },
};

/** The hashes RSA-PSS parameters may name, as Go accepts them (SHA-256, -384, -512). */
const PSS_HASHES: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/**
 * Why the CSR's self-signature does not prove its key, in Go's words, or undefined when it
 * does. The check runs in node's thread pool, not on the event loop.
 */
export async function checkCsrSignature(csr: ParsedCsr): Promise<string | undefined> {
  const verifier = VERIFIERS[csr.signatureAlgorithm];
  if (!verifier) return UNSUPPORTED;
  if (!csr.publicKey) return UNSUPPORTED;
  if (csr.publicKey.asymmetricKeyType !== verifier.keyType) return verifier.failure;
  let hash = verifier.hash;
  let key: Parameters<typeof verify>[2] = { key: csr.publicKey, dsaEncoding: 'der' };
  if (verifier.pss) {
    const pss = pssParams(csr.signatureParams);
    if (!pss) return UNSUPPORTED;
    hash = pss.hash;
    key = {
      key: csr.publicKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: pss.saltLength,
    };
  }
  const held = await new Promise<boolean>((resolve) => {
    try {
      verify(hash, csr.signed, key, csr.signature, (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
  return held ? undefined : verifier.failure;
}

/**
 * RSASSA-PSS-params (RFC 4055): the hash, and the salt length (20 when absent). MGF1 with the
 * same hash is assumed, as Go assumes it; a hash Go does not accept gives undefined.
 */
function pssParams(params: Buffer | undefined): { hash: string; saltLength: number } | undefined {
  if (!params) return undefined;
  try {
    let hash: string | undefined;
    let saltLength = 20;
    for (const field of childrenOf(params, readWhole(params, TAG.sequence))) {
      const inner = readElement(params, field.contentStart, field.end);
      if (field.tag === 0xa0) {
        const [id] = childrenOf(params, expectTag(inner, TAG.sequence));
        hash = id ? PSS_HASHES[readOid(params, id)] : undefined;
      } else if (field.tag === 0xa2) saltLength = readSmallInteger(params, inner);
    }
    return hash ? { hash, saltLength } : undefined;
  } catch {
    return undefined;
  }
}
