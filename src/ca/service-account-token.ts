/**
 * Kubernetes-style service account tokens: what a pod's projected token volume holds (an
 * audience narrowed to `istio-ca`, `sub: system:serviceaccount:<ns>:<sa>`, an expiry), minted
 * with the mock's key and checked the way the Kubernetes API server's TokenReview checks them
 * for istiod: signature, expiry, start, issuer, audience, subject.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import type { Problem, Result } from '../util/problems.js';
import { signJwt, verifyJwt } from './jwt.js';

/** The audience istiod asks TokenReview for (Istio's `TOKEN_AUDIENCES` default). */
export const DEFAULT_TOKEN_AUDIENCE = 'istio-ca';
/** The issuer a cluster's projected tokens carry. */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const MAX_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

export interface TokenRequest {
  namespace: string;
  serviceAccount: string;
  /** The `aud` claim; a token for the CA needs `istio-ca` (or what the mock was told to accept). */
  audiences: readonly string[];
  /** Seconds until expiry; a negative number mints a token that has already expired. */
  ttlSeconds: number;
}

export interface MintedToken {
  token: string;
  expiresAt: Date;
}

export interface ServiceAccountIdentity {
  namespace: string;
  serviceAccount: string;
}

// Namespaces are DNS labels; service account names are DNS subdomains.
export const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** A complete, checked token request from a partial one, with every problem at once. */
export function resolveTokenRequest(input: Partial<TokenRequest>): Result<TokenRequest> {
  const request: TokenRequest = {
    namespace: input.namespace ?? 'default',
    serviceAccount: input.serviceAccount ?? 'default',
    audiences: input.audiences ?? [DEFAULT_TOKEN_AUDIENCE],
    ttlSeconds: input.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
  };
  const problems: Problem[] = [];
  if (typeof request.namespace !== 'string' || !LABEL.test(request.namespace)) {
    problems.push({
      path: 'namespace',
      message: 'expected a Kubernetes namespace name (a DNS label)',
    });
  }
  if (typeof request.serviceAccount !== 'string' || !SUBDOMAIN.test(request.serviceAccount)) {
    problems.push({
      path: 'serviceAccount',
      message: 'expected a service account name (a DNS subdomain)',
    });
  }
  const auds = request.audiences as unknown;
  if (
    !Array.isArray(auds) ||
    auds.length === 0 ||
    !auds.every((a) => typeof a === 'string' && a !== '')
  ) {
    problems.push({ path: 'audiences', message: 'expected a non-empty list of audience strings' });
  }
  const ttl = request.ttlSeconds;
  if (!Number.isInteger(ttl) || ttl === 0 || Math.abs(ttl) > MAX_TOKEN_TTL_SECONDS) {
    problems.push({
      path: 'ttlSeconds',
      message: `expected a whole number of seconds, not 0, at most ${MAX_TOKEN_TTL_SECONDS} either way`,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: request };
}

export function subjectOf(identity: ServiceAccountIdentity): string {
  return `system:serviceaccount:${identity.namespace}:${identity.serviceAccount}`;
}

export function mintToken(key: KeyObject, request: TokenRequest, now = new Date()): MintedToken {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + request.ttlSeconds;
  const claims = {
    aud: [...request.audiences],
    exp,
    iat: Math.min(iat, exp),
    nbf: Math.min(iat, exp),
    iss: TOKEN_ISSUER,
    sub: subjectOf(request),
    'kubernetes.io': {
      namespace: request.namespace,
      serviceaccount: { name: request.serviceAccount, uid: randomUUID() },
    },
  };
  return { token: signJwt(claims, key), expiresAt: new Date(exp * 1000) };
}

export type TokenReview =
  { ok: true; identity: ServiceAccountIdentity } | { ok: false; reason: string };

const SUBJECT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** Reviews a token as TokenReview would with `audiences`: the identity, or why not. */
export function reviewToken(
  token: string,
  key: KeyObject,
  audiences: readonly string[],
  now = new Date(),
): TokenReview {
  const checked = verifyJwt(token, key);
  if (!checked.ok) return checked;
  const { claims } = checked;
  const seconds = now.getTime() / 1000;
  if (typeof claims['exp'] !== 'number') return { ok: false, reason: 'the token has no exp claim' };
  if (claims['exp'] <= seconds) {
    return {
      ok: false,
      reason: `the token expired at ${new Date(claims['exp'] * 1000).toISOString()}`,
    };
  }
  if (typeof claims['nbf'] === 'number' && claims['nbf'] > seconds + 1) {
    return {
      ok: false,
      reason: `the token is not valid before ${new Date(claims['nbf'] * 1000).toISOString()}`,
    };
  }
  // The API server reviews only tokens of its own issuer (--service-account-issuer).
  if (claims['iss'] !== TOKEN_ISSUER) {
    return {
      ok: false,
      reason: `the token's issuer ${JSON.stringify(claims['iss'])} is not ${TOKEN_ISSUER}`,
    };
  }
  const aud = claims['aud'];
  const tokenAudiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!tokenAudiences.some((a) => audiences.includes(a as string))) {
    return {
      ok: false,
      reason: `the token's audience ${JSON.stringify(tokenAudiences)} does not include ${audiences.join(' or ')}`,
    };
  }
  const match = SUBJECT.exec(typeof claims['sub'] === 'string' ? claims['sub'] : '');
  if (!match) {
    return {
      ok: false,
      reason: `the token's subject ${JSON.stringify(claims['sub'])} is not system:serviceaccount:<namespace>:<name>`,
    };
  }
  return {
    ok: true,
    identity: { namespace: match[1] as string, serviceAccount: match[2] as string },
  };
}
