/**
 * The certificates the mock's CA signs (workload and serving), written in DER with
 * node:crypto as root-cert.ts writes the root, and as istiod's CA makes them: an empty
 * subject, so the subject alternative names (SPIFFE URIs, DNS names, IP addresses) are the
 * only names and their extension is critical; CA:FALSE and key usage digitalSignature +
 * keyEncipherment (both critical); extended key usage serverAuth + clientAuth; an authority
 * key identifier, the SHA-1 of the CA's public key bits. Signed with the CA's key: ECDSA or
 * RSA (PKCS #1 v1.5), SHA-256, in node's thread pool.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { bitString, oid, sequence, tlv } from './der.js';
import { extension, signedCertificate } from './certificate-der.js';
import {
  childrenOf,
  DerError,
  pemBlock,
  readWhole,
  readWholeBits,
  TAG,
  whole,
} from './der-read.js';
import type { SigningKey } from './keys.js';

const OIDS = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  authorityKeyIdentifier: '2.5.29.35',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** digitalSignature (bit 0) and keyEncipherment (bit 2): 0b1010_0000, five bits unused. */
const LEAF_KEY_USAGE = bitString(Buffer.from([0xa0]), 5);

/** A subject alternative name: a URI (SPIFFE id), a DNS name or an IP address. */
export type AltName = { uri: string } | { dns: string } | { ip: string };

/** The CA that signs: its certificate (PEM) and key. */
export interface Signer {
  certPem: string;
  key: SigningKey;
}

export interface LeafParams {
  /** The SubjectPublicKeyInfo (DER) of the key certified. */
  spki: Buffer;
  names: readonly AltName[];
  /** A positive serial number, big-endian. */
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
}

/** A DNS name or an IP address as a subject alternative name. */
export function hostName(host: string): AltName {
  return isIP(host) !== 0 ? { ip: host } : { dns: host };
}

/** The DER of a leaf certificate for `params.spki`, signed by `ca`. */
export async function signLeafCertificate(ca: Signer, params: LeafParams): Promise<Buffer> {
  const caDer = pemBlock(ca.certPem, ['CERTIFICATE']);
  if (!caDer) throw new Error("the CA's certificate is not PEM");
  const { subject, publicKeyBits } = certificateParts(caDer);
  const keyId = createHash('sha1').update(publicKeyBits).digest();
  return signedCertificate(
    {
      serial: params.serial,
      issuer: subject,
      subject: sequence(), // empty: the alternative names are the only names
      notBefore: params.notBefore,
      notAfter: params.notAfter,
      spki: params.spki,
      extensions: [
        extension(OIDS.basicConstraints, sequence(), true),
        extension(OIDS.keyUsage, LEAF_KEY_USAGE, true),
        extension(
          OIDS.extendedKeyUsage,
          sequence(oid(OIDS.serverAuth), oid(OIDS.clientAuth)),
          false,
        ),
        extension(OIDS.authorityKeyIdentifier, sequence(tlv(0x80, keyId)), false),
        extension(OIDS.subjectAltName, sequence(...params.names.map(generalName)), true),
      ],
    },
    ca.key,
  );
}

/** `[6]` uniformResourceIdentifier, `[2]` dNSName, `[7]` iPAddress (RFC 5280 §4.2.1.6). */
function generalName(name: AltName): Buffer {
  if ('uri' in name) return tlv(0x86, Buffer.from(name.uri, 'ascii'));
  if ('dns' in name) return tlv(0x82, Buffer.from(name.dns, 'ascii'));
  return tlv(0x87, ipBytes(name.ip));
}

/** An IPv4 or IPv6 address's 4 or 16 bytes. */
export function ipBytes(ip: string): Buffer {
  const version = isIP(ip);
  if (version === 4) return Buffer.from(ip.split('.').map(Number));
  if (version !== 6) throw new Error(`not an IP address: ${ip}`);
  let text = ip.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2));
  return bytes;
}

/** A certificate's subject (DER, to be the issuer of what it signs) and its public key bits. */
function certificateParts(der: Buffer): { subject: Buffer; publicKeyBits: Buffer } {
  const [tbs] = childrenOf(der, readWhole(der, TAG.sequence));
  if (!tbs) throw new DerError('empty certificate');
  const fields = childrenOf(der, tbs);
  // [0] version is optional; then serial, signature, issuer, validity, subject, key.
  const at = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[at + 4];
  const spki = fields[at + 5];
  if (!subject || !spki) throw new DerError('short certificate');
  const [, bits] = childrenOf(der, spki);
  if (!bits) throw new DerError('no public key');
  return { subject: Buffer.from(whole(der, subject)), publicKeyBits: readWholeBits(der, bits) };
}
