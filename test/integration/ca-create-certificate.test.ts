/**
 * istio.v1.auth.IstioCertificateService/CreateCertificate on the mock's xDS port, driven by a
 * real gRPC client as a pod's pilot-agent would: a token with the wrong audience gets
 * istiod's `UNAUTHENTICATED "request authenticate failure"` and no certificate (the seed's
 * "token audience is wrong, so no certificate was issued"); a good token gets a chain whose
 * leaf carries the SPIFFE id of the token's service account and is signed by the root.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import type { CaClient } from '../../src/ca/ca-proto.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import type { MockIstiodOptions } from '../../src/app/options.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { servingHosts } from '../../src/ca/security-options.js';
import { prepareTlsMaterial } from '../../src/tls/tls-material.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { bearer, caClient, createCertificate, makeCsr } from '../support/fixtures/ca.js';
import { PLAINTEXT_CA_REASON } from '../../src/ca/ca-service.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

// The CA clients and files go here; the mocks come from `startMock`, whose teardown checks
// that each is gone (no stream left, its ports closed) once these have run.
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  istiod: TestMockIstiod;
  client: CaClient;
  logs: { msg: string; reason?: string }[];
}

async function start(
  startMock: Fixtures['startMock'],
  options: Partial<MockIstiodOptions> = {},
): Promise<Started> {
  const logs: { msg: string; reason?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(JSON.parse(chunk.toString()) as { msg: string });
      done();
    },
  });
  // Most tests here are about the CA's answers, not its transport: a plaintext mock is told
  // to sign (istiod itself signs only on 15012; see 'a plaintext port' below).
  const istiod = await startMock({
    control: false,
    logger: pino(sink),
    ...options,
    ca: { plaintext: true, ...options.ca },
  });
  const tls = istiod.security.tls ? istiod.security.rootCert : undefined;
  const client = caClient(istiod.xdsAddress, tls);
  cleanups.push(() => client.close());
  return { istiod, client, logs };
}

describe('CreateCertificate', () => {
  it('a token with the wrong audience gets UNAUTHENTICATED "request authenticate failure" and no certificate', async ({
    startMock,
  }) => {
    const { istiod, client, logs } = await start(startMock);
    const { token } = istiod.security.createToken({ audiences: ['kubernetes.default.svc'] });
    const outcome = await createCertificate(client, { csr: await makeCsr() }, token);
    expect(outcome).toEqual({
      ok: false,
      code: grpc.status.UNAUTHENTICATED,
      details: 'request authenticate failure',
      reason: 'the token\'s audience ["kubernetes.default.svc"] does not include istio-ca',
    });
    const line = logs.find((l) => l.msg.startsWith('Failed to authenticate client from'));
    expect(line?.msg).toMatch(
      /^Failed to authenticate client from .+: Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster "Kubernetes": the token is not authenticated$/,
    );
  });

  it('a good token gets [leaf, root]: the leaf names the SPIFFE id and is signed by the root', async ({
    startMock,
  }) => {
    const { istiod, client } = await start(startMock);
    const { token } = istiod.security.createToken({ namespace: 'shop', serviceAccount: 'orders' });
    const outcome = await createCertificate(
      client,
      { csr: await makeCsr(), validity_duration: 3600 },
      token,
    );
    if (!outcome.ok) throw new Error(`expected a certificate, got ${outcome.details}`);
    expect(outcome.chain).toHaveLength(2);
    expect(outcome.chain.every((pem) => pem.endsWith('-----END CERTIFICATE-----\n'))).toBe(true);
    const [leaf, root] = outcome.chain.map((pem) => new X509Certificate(pem)) as [
      X509Certificate,
      X509Certificate,
    ];
    expect(leaf.subjectAltName).toBe('URI:spiffe://cluster.local/ns/shop/sa/orders');
    expect(root.fingerprint256).toBe(new X509Certificate(istiod.security.rootCert).fingerprint256);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    const lifetime = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 1000;
    expect(lifetime).toBeGreaterThanOrEqual(3600);
    expect(lifetime).toBeLessThanOrEqual(3600 + 120);
  });

  it.for([
    ['no authorization metadata', undefined, 'no HTTP authorization header exists'],
    [
      'a token of another issuer',
      'other',
      "the JWT's signature does not verify with the mock's key",
    ],
    ['an expired token', 'expired', 'the token expired at'],
    ['not a JWT', 'garbage', 'the token is not a JWT (three parts)'],
  ] as const)("%s is refused with istiod's status", async ([, kind, reason], { startMock }) => {
    const { istiod, client } = await start(startMock);
    let token: string | undefined;
    if (kind === 'expired') token = istiod.security.createToken({ ttlSeconds: -60 }).token;
    if (kind === 'garbage') token = 'not-a-jwt';
    if (kind === 'other') {
      const other = await startMock({ control: false });
      token = other.security.createToken().token;
    }
    const outcome = await createCertificate(client, { csr: await makeCsr() }, token);
    expect(outcome).toMatchObject({
      ok: false,
      code: grpc.status.UNAUTHENTICATED,
      details: 'request authenticate failure',
    });
    expect(outcome.ok ? '' : outcome.reason).toContain(reason);
  });

  it("refuses a malformed CSR and a TTL above the maximum with istiod's messages", async ({
    startMock,
  }) => {
    const { istiod, client } = await start(startMock);
    const { token } = istiod.security.createToken();
    expect(await createCertificate(client, { csr: 'hello' }, token)).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'CSR signing error (certificate signing request is not properly encoded)',
    });
    const tooLong = { csr: await makeCsr(), validity_duration: 90 * 24 * 3600 + 1 };
    expect(await createCertificate(client, tooLong, token)).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details:
        'CSR signing error (requested TTL 2160h0m1s is greater than the max allowed TTL 2160h0m0s)',
    });
  });

  it('accepts the audiences it is told to, and only those', async ({ startMock }) => {
    const { istiod, client } = await start(startMock, {
      ca: { audiences: ['my-mesh-ca'], trustDomain: 'example.org' },
    });
    const csr = await makeCsr();
    const refused = await createCertificate(client, { csr }, istiod.security.createToken().token);
    expect(refused).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    const token = istiod.security.createToken({
      audiences: ['my-mesh-ca'],
      serviceAccount: 'api',
    }).token;
    const outcome = await createCertificate(client, { csr }, token);
    if (!outcome.ok) throw new Error(outcome.details);
    expect(new X509Certificate(outcome.chain[0] as string).subjectAltName).toBe(
      'URI:spiffe://example.org/ns/default/sa/api',
    );
  });
});

describe('the CA and ADS over TLS', () => {
  it('without ca-key.pem in the directory, still serves TLS but cannot sign: INTERNAL', async ({
    startMock,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-ca-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(
      (
        await prepareTlsMaterial({
          dir,
          hosts: servingHosts({ dir, hosts: [] }),
          trustDomain: 'cluster.local',
        })
      ).ok,
    ).toBe(true);
    unlinkSync(join(dir, TLS_FILES.caKey));
    const { istiod, client } = await start(startMock, { tls: { dir } });
    const { token } = istiod.security.createToken();
    expect(await createCertificate(client, { csr: await makeCsr() }, token)).toMatchObject({
      code: grpc.status.INTERNAL,
      details: 'CSR signing error (Istio CA is not ready)',
    });
  });

  it('serves both on the TLS port, and again after the port went down and up', async ({
    startMock,
  }) => {
    const { istiod, client } = await start(startMock, { tls: true });
    const { token } = istiod.security.createToken({ serviceAccount: 'orders' });
    const first = await createCertificate(client, { csr: await makeCsr() }, token);
    expect(first.ok).toBe(true);

    const credentials = grpc.credentials.createSsl(Buffer.from(istiod.security.rootCert));
    const ads = new AdsTestClient(`localhost:${istiod.addresses.xds.port}`, credentials);
    cleanups.push(() => ads.close());
    const stream = ads.sotw(bearer(token));
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect((await stream.next(10_000)).resources).toHaveLength(2);

    await istiod.control.down();
    await istiod.control.up();
    const again = await createCertificate(client, { csr: await makeCsr() }, token);
    expect(again.ok).toBe(true);
  });

  it("a plaintext port refuses CSRs as istiod's 15010 does (UNIMPLEMENTED), unless ca.plaintext", async ({
    startMock,
  }) => {
    const { istiod, client, logs } = await start(startMock, { ca: { plaintext: false } });
    const { token } = istiod.security.createToken();
    expect(await createCertificate(client, { csr: await makeCsr() }, token)).toEqual({
      ok: false,
      code: grpc.status.UNIMPLEMENTED,
      details: 'unknown service istio.v1.auth.IstioCertificateService',
      reason: PLAINTEXT_CA_REASON,
    });
    expect(logs.some((l) => l.msg === `CSR refused: ${PLAINTEXT_CA_REASON}`)).toBe(true);
    expect(await istiod.metrics.text()).toContain(
      'mock_istiod_auth_refusals_total{service="ca",reason="plaintext"} 1',
    );
  });

  it('a plaintext client cannot talk to the TLS port', async ({ startMock }) => {
    const { istiod } = await start(startMock, { tls: true });
    const plain = caClient(istiod.xdsAddress);
    cleanups.push(() => plain.close());
    const { token } = istiod.security.createToken();
    const outcome = await createCertificate(plain, { csr: await makeCsr() }, token, 3_000);
    // The TLS server never completes an HTTP/2 handshake with it: no connection, no call.
    expect(outcome).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });
});

describe('the CA on the control API', () => {
  it('mints tokens the CA accepts, names every bad field, and serves the root certificate', async ({
    startMock,
  }) => {
    const { istiod, client } = await start(startMock, { control: { host: '127.0.0.1', port: 0 } });
    const base = `http://127.0.0.1:${istiod.addresses.control?.port}`;
    const post = (body: unknown) =>
      fetch(`${base}/ca/token`, { method: 'POST', body: JSON.stringify(body) });

    const ok = await post({ namespace: 'shop', serviceAccount: 'orders', ttlSeconds: 600 });
    expect(ok.status).toBe(200);
    const minted = (await ok.json()) as { token: string; subject: string; expiresAt: string };
    expect(minted.subject).toBe('system:serviceaccount:shop:orders');
    const outcome = await createCertificate(client, { csr: await makeCsr() }, minted.token);
    expect(outcome.ok).toBe(true);

    const bad = await post({ namespace: 'Shop', ttl: 5 });
    expect(bad.status).toBe(400);
    const { problems } = (await bad.json()) as { problems: { path: string }[] };
    expect(problems.map((p) => p.path)).toEqual(['ttl', 'namespace']);

    const root = await fetch(`${base}/ca/root-cert`);
    expect(root.headers.get('content-type')).toContain('application/x-pem-file');
    expect(await root.text()).toBe(istiod.security.rootCert);
  });
});
