/**
 * Compact JWTs signed with ES256 (RFC 7515, RFC 7518 §3.4), with node:crypto alone: enough to
 * mint and check the Kubernetes-style service account tokens the CA service accepts. Only
 * ES256 is accepted on the way in, whatever the header says (no `none`, no algorithm
 * confusion).
 */
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export type JwtClaims = Record<string, unknown>;

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs `claims` with an EC P-256 private key. */
export function signJwt(claims: JwtClaims, key: KeyObject, keyId?: string): string {
  const header = { alg: 'ES256', typ: 'JWT', ...(keyId ? { kid: keyId } : {}) };
  const input = `${encode(header)}.${encode(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export type JwtCheck = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks the signature of a compact JWT against `key` (a private or public EC P-256 key) and
 * returns its claims; the claims themselves (audience, expiry, subject) are the caller's to
 * judge.
 */
export function verifyJwt(token: string, key: KeyObject): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'the token is not a JWT (three parts)' };
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  if (!header) return { ok: false, reason: 'the JWT header is not base64url JSON' };
  if (header['alg'] !== 'ES256') {
    return { ok: false, reason: `the JWT is signed with ${String(header['alg'])}, not ES256` };
  }
  const signature = Buffer.from(signaturePart, 'base64url');
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const valid = verify(
    'sha256',
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    signature,
  );
  if (!valid)
    return { ok: false, reason: "the JWT's signature does not verify with the mock's key" };
  const claims = decodeJson(claimsPart);
  if (!claims) return { ok: false, reason: 'the JWT claims are not base64url JSON' };
  return { ok: true, claims };
}
