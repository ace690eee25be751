/**
 * Attacks on the CA and its tokens, one row per class: forged, stale, misaddressed and
 * malformed tokens, and CSRs that ask for too much or are not what they claim. Each row
 * builds its request against a running mock and says how istiod answers it. Used by
 * test/integration/ca-attacks.test.ts and scripts/reliability/ca-attacks.ts.
 */
import 'reflect-metadata';
import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  sign,
  webcrypto,
  type KeyObject,
} from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as x509 from '@peculiar/x509';
import { signJwt, type JwtClaims } from '../../../src/ca/jwt.js';
import { TOKEN_ISSUER } from '../../../src/ca/service-account-token.js';
import type { CsrOutcome } from '../../../src/core/stream-auth.js';

export interface AttackContext {
  /** A token the mock signed: `{ namespace, serviceAccount, audiences, ttlSeconds }`. */
  mint(request?: { audiences?: string[]; ttlSeconds?: number }): string;
  /** The mock's token key (read from its TLS directory); undefined without one. */
  jwtKey: KeyObject | undefined;
}

export interface AttackRequest {
  csr: string;
  /** The whole `authorization` value; undefined sends none. */
  authorization: string | undefined;
  validity_duration?: number;
  metadata?: { fields: Record<string, { stringValue: string }> };
}

export interface CaAttack {
  name: string;
  kind: 'token' | 'csr';
  /** Needs the mock's token key (a TLS mock with a directory). */
  needsKey?: boolean;
  build(ctx: AttackContext): Promise<AttackRequest>;
  /** istiod's answer; `signed` rows must be certified for the caller's own identity only. */
  expect:
    | { signed: true }
    | {
        signed: false;
        code: grpc.status;
        /** The status message; a pattern where the ports word it differently (below). */
        details: string | RegExp;
        /** The `x-mock-istiod-reason` trailer; undefined when gRPC refused before the CA. */
        reason: RegExp | undefined;
        /** What istiod's counters record; undefined when the call never reached the CA. */
        outcome: CsrOutcome | undefined;
      };
}

/** The identity every good token here is for, and one it must never be given. */
export const CALLER = { namespace: 'default', serviceAccount: 'default' } as const;
export const CALLER_SPIFFE = 'spiffe://cluster.local/ns/default/sa/default';
export const VICTIM_SPIFFE = 'spiffe://cluster.local/ns/istio-system/sa/istiod';

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
} as const;
const ED25519 = { name: 'Ed25519' } as const;

type KeyAlgorithm = typeof EC | typeof RSA | typeof ED25519;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** A CSR for a new key of `algorithm`, with `sans` as URI names when given. */
export async function csrFor(algorithm: KeyAlgorithm = EC, sans: string[] = []): Promise<string> {
  return (await csrWithKey(algorithm, sans)).csr.toString('pem');
}

async function csrWithKey(algorithm: KeyAlgorithm, sans: string[] = []) {
  const keys = await webcrypto.subtle.generateKey(algorithm as never, true, ['sign', 'verify']);
  const extensions = sans.length
    ? [new x509.SubjectAlternativeNameExtension(sans.map((value) => ({ type: 'url', value })))]
    : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'O=cluster.local',
    keys: keys as never,
    signingAlgorithm: algorithm as never,
    extensions,
  });
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return { csr, spki };
}

const pem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE REQUEST-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE REQUEST-----\n`;

/** A CSR signed by one key that asks to certify another (same-size P-256 keys swapped). */
async function substitutedKeyCsr(): Promise<string> {
  const mine = await csrWithKey(EC);
  const theirs = await csrWithKey(EC);
  const der = Buffer.from(mine.csr.rawData);
  const at = der.indexOf(mine.spki);
  theirs.spki.copy(der, at);
  return pem(der);
}

/** An Ed25519 CSR relabelled as Ed448 (OID 1.3.101.113), an algorithm Go's x509 lacks. */
async function unsupportedAlgorithmCsr(): Promise<string> {
  const der = Buffer.from((await csrWithKey(ED25519)).csr.rawData);
  const ed25519 = Buffer.from([0x06, 0x03, 0x2b, 0x65, 0x70]);
  for (let at = der.indexOf(ed25519); at >= 0; at = der.indexOf(ed25519, at + 1))
    der[at + 4] = 0x71;
  return pem(der);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Claims a cluster's projected token carries for `CALLER`, valid now for an hour. */
export function callerClaims(overrides: JwtClaims = {}): JwtClaims {
  const now = Math.floor(Date.now() / 1000);
  return {
    aud: ['istio-ca'],
    exp: now + 3600,
    iat: now,
    nbf: now,
    iss: TOKEN_ISSUER,
    sub: `system:serviceaccount:${CALLER.namespace}:${CALLER.serviceAccount}`,
    ...overrides,
  };
}

const key = (ctx: AttackContext) => {
  if (!ctx.jwtKey) throw new Error("this attack needs the mock's token key (a TLS directory)");
  return ctx.jwtKey;
};

const refused = (reason: RegExp) =>
  ({
    signed: false,
    code: grpc.status.UNAUTHENTICATED,
    details: 'request authenticate failure',
    reason,
    outcome: 'unauthenticated',
  }) as const;

const csrError = (message: string, reason = message) =>
  ({
    signed: false,
    code: grpc.status.INVALID_ARGUMENT,
    details: `CSR signing error (${message})`,
    reason: new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    outcome: 'CSR_ERROR',
  }) as const;

/** A request from `CALLER` with a good CSR and this `authorization` value. */
const withAuthorization = async (authorization: string | undefined): Promise<AttackRequest> => ({
  csr: await csrFor(),
  authorization,
});
const withToken = (token: string) => withAuthorization(`Bearer ${token}`);

export const TOKEN_ATTACKS: CaAttack[] = [
  {
    name: 'an expired token',
    kind: 'token',
    build: (ctx) => withToken(ctx.mint({ ttlSeconds: -60 })),
    expect: refused(/^the token expired at /),
  },
  {
    name: 'a token not valid yet (nbf an hour ahead)',
    kind: 'token',
    needsKey: true,
    build: (ctx) => {
      const now = Math.floor(Date.now() / 1000);
      return withToken(signJwt(callerClaims({ nbf: now + 3600, exp: now + 7200 }), key(ctx)));
    },
    expect: refused(/^the token is not valid before /),
  },
  {
    name: 'a token for another audience',
    kind: 'token',
    build: (ctx) => withToken(ctx.mint({ audiences: ['kubernetes.default.svc'] })),
    expect: refused(
      /^the token's audience \["kubernetes.default.svc"\] does not include istio-ca$/,
    ),
  },
  {
    name: 'a token from another issuer',
    kind: 'token',
    needsKey: true,
    build: (ctx) => withToken(signJwt(callerClaims({ iss: 'https://evil.example' }), key(ctx))),
    expect: refused(/^the token's issuer "https:\/\/evil.example" is not https:\/\/kubernetes/),
  },
  {
    name: 'a token with alg: none',
    kind: 'token',
    build: () => withToken(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(callerClaims())}.`),
    expect: refused(/^the JWT is signed with none, not ES256$/),
  },
  {
    name: "a token HMAC-signed with the mock's public key (algorithm confusion)",
    kind: 'token',
    needsKey: true,
    build: (ctx) => {
      const secret = createPublicKey(key(ctx)).export({ type: 'spki', format: 'pem' });
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(callerClaims())}`;
      const mac = createHmac('sha256', secret).update(input).digest('base64url');
      return withToken(`${input}.${mac}`);
    },
    expect: refused(/^the JWT is signed with HS256, not ES256$/),
  },
  {
    name: 'a token signed with another key',
    kind: 'token',
    build: () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return withToken(signJwt(callerClaims(), privateKey));
    },
    expect: refused(/^the JWT's signature does not verify with the mock's key$/),
  },
  {
    name: 'a token with a subject that is not a service account',
    kind: 'token',
    needsKey: true,
    build: (ctx) => withToken(signJwt(callerClaims({ sub: 'system:admin' }), key(ctx))),
    expect: refused(/^the token's subject "system:admin" is not system:serviceaccount:/),
  },
  {
    name: 'a token without exp',
    kind: 'token',
    needsKey: true,
    build: (ctx) => withToken(signJwt(callerClaims({ exp: undefined }), key(ctx))),
    expect: refused(/^the token has no exp claim$/),
  },
  {
    name: 'an oversized token (12 KiB of claims)',
    kind: 'token',
    build: () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return withToken(signJwt(callerClaims({ pad: 'x'.repeat(12 * 1024) }), privateKey));
    },
    expect: refused(/^the JWT's signature does not verify with the mock's key$/),
  },
  {
    name: 'an oversized token (60 KiB of noise)',
    kind: 'token',
    build: () => withToken(`${'a'.repeat(60 * 1024)}.b.c`),
    expect: refused(/^the JWT header is not base64url JSON$/),
  },
  {
    name: 'a token that is not a JWT',
    kind: 'token',
    build: () => withToken('not-a-jwt'),
    expect: refused(/^the token is not a JWT \(three parts\)$/),
  },
  {
    name: 'a token whose header is not JSON',
    kind: 'token',
    build: () => withToken('%%%.e30.AAAA'),
    expect: refused(/^the JWT header is not base64url JSON$/),
  },
  {
    name: 'a token whose claims are not JSON (validly signed)',
    kind: 'token',
    needsKey: true,
    build: (ctx) => {
      const token = signJwt({}, key(ctx));
      const [header] = token.split('.') as [string];
      const claims = Buffer.from('not json').toString('base64url');
      const signature = sign('sha256', Buffer.from(`${header}.${claims}`), {
        key: key(ctx),
        dsaEncoding: 'ieee-p1363',
      }).toString('base64url');
      return withToken(`${header}.${claims}.${signature}`);
    },
    expect: refused(/^the JWT claims are not base64url JSON$/),
  },
  {
    name: 'no authorization header',
    kind: 'token',
    build: () => withAuthorization(undefined),
    expect: refused(/^no HTTP authorization header exists$/),
  },
  {
    name: 'an authorization header that is not a bearer token',
    kind: 'token',
    build: () => withAuthorization('Basic ZGVmYXVsdDpkZWZhdWx0'),
    expect: refused(/^no bearer token exists in HTTP authorization header$/),
  },
];

export const CSR_ATTACKS: CaAttack[] = [
  {
    name: "a CSR naming another identity's SPIFFE id (the CSR's names are ignored)",
    kind: 'csr',
    build: async (ctx) => ({
      csr: await csrFor(EC, [VICTIM_SPIFFE]),
      authorization: `Bearer ${ctx.mint()}`,
    }),
    expect: { signed: true },
  },
  {
    name: 'a request asking to impersonate another identity (ImpersonatedIdentity)',
    kind: 'csr',
    build: async (ctx) => ({
      csr: await csrFor(),
      authorization: `Bearer ${ctx.mint()}`,
      metadata: { fields: { ImpersonatedIdentity: { stringValue: VICTIM_SPIFFE } } },
    }),
    expect: {
      signed: false,
      code: grpc.status.UNAUTHENTICATED,
      details: 'request impersonation authentication failure',
      reason:
        /^impersonation not allowed, as node authorizer \(CA_TRUSTED_NODE_ACCOUNTS\) is not configured/,
      outcome: 'unauthenticated',
    },
  },
  {
    name: 'a CSR that asks to certify a key it was not signed with',
    kind: 'csr',
    build: async (ctx) => ({
      csr: await substitutedKeyCsr(),
      authorization: `Bearer ${ctx.mint()}`,
    }),
    expect: csrError('x509: ECDSA verification failure'),
  },
  {
    name: 'a CSR in an algorithm Go does not know (Ed448 label)',
    kind: 'csr',
    build: async (ctx) => ({
      csr: await unsupportedAlgorithmCsr(),
      authorization: `Bearer ${ctx.mint()}`,
    }),
    expect: csrError('x509: cannot verify signature: algorithm unimplemented'),
  },
  {
    name: 'a CSR that is not PEM',
    kind: 'csr',
    build: (ctx) => Promise.resolve({ csr: 'hello', authorization: `Bearer ${ctx.mint()}` }),
    expect: csrError('certificate signing request is not properly encoded'),
  },
  {
    name: 'a PEM CSR whose body is not a CSR',
    kind: 'csr',
    build: (ctx) =>
      Promise.resolve({
        csr: pem(Buffer.from('this is not DER at all')),
        authorization: `Bearer ${ctx.mint()}`,
      }),
    expect: csrError('failed to parse X.509 certificate signing request'),
  },
  {
    name: 'a huge CSR (3 MiB)',
    kind: 'csr',
    build: (ctx) =>
      Promise.resolve({
        csr: pem(Buffer.alloc(2.2 * 1024 * 1024, 0x30)),
        authorization: `Bearer ${ctx.mint()}`,
      }),
    expect: csrError('failed to parse X.509 certificate signing request'),
  },
  {
    name: 'a CSR over the 4 MiB message limit',
    kind: 'csr',
    build: (ctx) =>
      Promise.resolve({
        csr: 'x'.repeat(4 * 1024 * 1024 + 1),
        authorization: `Bearer ${ctx.mint()}`,
      }),
    expect: {
      signed: false,
      code: grpc.status.RESOURCE_EXHAUSTED,
      // gRPC's refusal, before the CA: on the plaintext port in istiod's words (grpc-go's),
      // on a TLS port, which grpc-js serves, in grpc-js's.
      details:
        /^(grpc: received message larger than max \(4194310 vs\. 4194304\)|Received message larger than max \(4194310 vs 4194304\))$/,
      reason: undefined,
      outcome: undefined,
    },
  },
  {
    name: 'an Ed25519 CSR (Go certifies Ed25519 keys, and so does istiod)',
    kind: 'csr',
    build: async (ctx) => ({ csr: await csrFor(ED25519), authorization: `Bearer ${ctx.mint()}` }),
    expect: { signed: true },
  },
  {
    name: 'an RSA 2048 CSR',
    kind: 'csr',
    build: async (ctx) => ({ csr: await csrFor(RSA), authorization: `Bearer ${ctx.mint()}` }),
    expect: { signed: true },
  },
];
