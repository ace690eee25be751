/**
 * Service account tokens: minted in the shape of a pod's projected token and reviewed as the
 * API server's TokenReview would for istiod (signature, expiry, audience, subject); every
 * refusal says why. Only ES256 is accepted, whatever the header claims.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signJwt, verifyJwt } from '../../src/ca/jwt.js';
import {
  mintToken,
  resolveTokenRequest,
  reviewToken,
  TOKEN_ISSUER,
  type TokenRequest,
} from '../../src/ca/service-account-token.js';
import { goDuration, spiffeId } from '../../src/ca/ca-service.js';

const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const now = new Date('2026-01-01T00:00:00Z');
const request = (overrides: Partial<TokenRequest> = {}): TokenRequest => ({
  namespace: 'shop',
  serviceAccount: 'orders',
  audiences: ['istio-ca'],
  ttlSeconds: 3600,
  ...overrides,
});

describe('service account tokens', () => {
  it('carry what a projected token carries, and pass review with the right audience', () => {
    const { token, expiresAt } = mintToken(key, request(), now);
    const checked = verifyJwt(token, key);
    if (!checked.ok) throw new Error(checked.reason);
    expect(checked.claims).toMatchObject({
      aud: ['istio-ca'],
      iss: TOKEN_ISSUER,
      sub: 'system:serviceaccount:shop:orders',
      exp: now.getTime() / 1000 + 3600,
      'kubernetes.io': { namespace: 'shop', serviceaccount: { name: 'orders' } },
    });
    expect(expiresAt.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(reviewToken(token, key, ['istio-ca'], now)).toEqual({
      ok: true,
      identity: { namespace: 'shop', serviceAccount: 'orders' },
    });
  });

  it('are refused, each with its reason', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const good = mintToken(key, request(), now).token;
    const later = new Date(now.getTime() + 3600_000);
    const cases: [string, string][] = [
      [
        mintToken(key, request({ audiences: ['kubernetes.default.svc'] }), now).token,
        'the token\'s audience ["kubernetes.default.svc"] does not include istio-ca',
      ],
      [
        mintToken(other, request(), now).token,
        "the JWT's signature does not verify with the mock's key",
      ],
      [good.split('.').slice(0, 2).join('.'), 'the token is not a JWT (three parts)'],
      [
        signJwt({ sub: 'system:serviceaccount:a:b', aud: 'istio-ca' }, key),
        'the token has no exp claim',
      ],
      [
        signJwt({ exp: 2e9, aud: 'istio-ca', iss: TOKEN_ISSUER, sub: 'alice' }, key),
        'the token\'s subject "alice" is not system:serviceaccount:<namespace>:<name>',
      ],
      [
        signJwt({ exp: 2e9, aud: 'istio-ca', sub: 'system:serviceaccount:a:b' }, key),
        "the token's issuer undefined is not https://kubernetes.default.svc.cluster.local",
      ],
      [
        signJwt({ exp: 2e9, iss: 'https://evil.example', sub: 'system:serviceaccount:a:b' }, key),
        'the token\'s issuer "https://evil.example" is not https://kubernetes.default.svc.cluster.local',
      ],
    ];
    for (const [token, reason] of cases) {
      expect(reviewToken(token, key, ['istio-ca'], now)).toEqual({ ok: false, reason });
    }
    expect(reviewToken(good, key, ['istio-ca'], later)).toEqual({
      ok: false,
      reason: 'the token expired at 2026-01-01T01:00:00.000Z',
    });
  });

  it('accept an audience given as a string, as Kubernetes may write it', () => {
    const claims = {
      exp: 2e9,
      aud: 'istio-ca',
      iss: TOKEN_ISSUER,
      sub: 'system:serviceaccount:a:b',
    };
    const token = signJwt(claims, key);
    expect(reviewToken(token, key, ['istio-ca'], now)).toMatchObject({ ok: true });
  });

  it("accept only ES256, whatever the header says ('none' included)", () => {
    const body = Buffer.from(JSON.stringify({ exp: 2e9, aud: 'istio-ca' })).toString('base64url');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${body}.`;
    expect(verifyJwt(none, key)).toEqual({
      ok: false,
      reason: 'the JWT is signed with none, not ES256',
    });
    const header = Buffer.from('{"alg":"ES384"}').toString('base64url');
    const signature = sign('sha384', Buffer.from(`${header}.${body}`), key).toString('base64url');
    expect(verifyJwt(`${header}.${body}.${signature}`, key)).toMatchObject({ ok: false });
  });
});

describe('token requests', () => {
  it('default to default/default, istio-ca, one hour', () => {
    expect(resolveTokenRequest({})).toEqual({
      ok: true,
      value: {
        namespace: 'default',
        serviceAccount: 'default',
        audiences: ['istio-ca'],
        ttlSeconds: 3600,
      },
    });
  });

  it('name every bad field', () => {
    const result = resolveTokenRequest({
      namespace: 'Shop',
      serviceAccount: '',
      audiences: [],
      ttlSeconds: 0,
    });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'namespace',
      'serviceAccount',
      'audiences',
      'ttlSeconds',
    ]);
  });
});

describe("istiod's wording", () => {
  it('spells durations as Go does, and SPIFFE ids as Istio does', () => {
    expect([45, 90, 3600, 7776001].map(goDuration)).toEqual([
      '45s',
      '1m30s',
      '1h0m0s',
      '2160h0m1s',
    ]);
    expect(spiffeId('cluster.local', { namespace: 'ns', serviceAccount: 'sa' })).toBe(
      'spiffe://cluster.local/ns/ns/sa/sa',
    );
  });
});
