/**
 * Private keys between PEM files and WebCrypto. The mock makes ECDSA P-256 keys; a directory
 * a user fills may hold Istio's own (RSA in PKCS #1, EC in SEC 1, or either in PKCS #8), so
 * keys are read with node:crypto, which understands all of these, and handed to WebCrypto as
 * PKCS #8.
 */
import { createPrivateKey, createPublicKey, webcrypto, type KeyObject } from 'node:crypto';

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** ECDSA over P-256 with SHA-256: what the mock's own keys and signatures use. */
export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** The WebCrypto algorithm a key signs with (SHA-256 throughout, as Istio's CA). */
export type SigningAlgorithm =
  | { name: 'ECDSA'; namedCurve: string; hash: 'SHA-256' }
  | { name: 'RSASSA-PKCS1-v1_5'; hash: 'SHA-256' };

export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  algorithm: SigningAlgorithm;
}

export async function generateSigningKey(): Promise<SigningKey> {
  const pair = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  return { privateKey: pair.privateKey, publicKey: pair.publicKey, algorithm: EC_P256 };
}

/** `-----BEGIN PRIVATE KEY-----` (PKCS #8), the form Envoy, grpc-js and Istio all read. */
export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return toPem(der, 'PRIVATE KEY');
}

export function toPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The signing algorithm of a key node:crypto has read; undefined for kinds the CA cannot use. */
function algorithmOf(key: KeyObject): SigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (key.asymmetricKeyType !== 'ec') return undefined;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const named = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : undefined;
  return named ? { name: 'ECDSA', namedCurve: named, hash: 'SHA-256' } : undefined;
}

/**
 * Reads a PEM private key into a WebCrypto key pair; throws an Error whose message says what
 * is wrong with the key (the caller adds the file name).
 */
export async function signingKeyFromPem(pem: string): Promise<SigningKey> {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('is not a PEM private key');
  }
  const algorithm = algorithmOf(key);
  if (!algorithm) {
    throw new Error(
      `holds a key of type ${key.asymmetricKeyType ?? 'unknown'}; expected RSA or ECDSA (P-256 or P-384)`,
    );
  }
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const subtle = webcrypto.subtle;
  return {
    privateKey: await subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']),
    publicKey: await subtle.importKey('spki', spki, algorithm, true, ['verify']),
    algorithm,
  };
}
