/**
 * xDS authentication on the TLS port, as istiod does it: a stream needs the pod's token
 * (`authorization: Bearer <token>`, audience istio-ca) or a client certificate issued by the
 * mock's CA; without either it ends with UNAUTHENTICATED "authentication failure" before any
 * request is read; an identity that is not the node's namespace and service account ends it
 * with PERMISSION_DENIED. A plaintext port, or `xdsAuth: false`, lets every stream in.
 */
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import type { MockIstiodOptions } from '../../src/app/options.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { CLIENT_CONFIG_TYPE, CLUSTER_TYPE, SYNCZ_DEBUG_TYPE } from '../../src/xds/type-urls.js';
import { bearer, caClient, createCertificate, makeKeyAndCsr } from '../support/fixtures/ca.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TLS mock (closed by the `startMock` fixture) and the lines it logs. */
async function start(startMock: Fixtures['startMock'], options: Partial<MockIstiodOptions> = {}) {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  const istiod = await startMock({ tls: true, logger: pino(sink), ...options });
  return { istiod, logs };
}

/** An ADS client over TLS (verifying istiod's name), optionally with a client certificate. */
function tlsClient(istiod: TestMockIstiod, clientCert?: { keyPem: string; chain: string[] }) {
  const credentials = grpc.credentials.createSsl(
    Buffer.from(istiod.security.rootCert),
    clientCert ? Buffer.from(clientCert.keyPem) : null,
    clientCert ? Buffer.from(clientCert.chain.join('')) : null,
  );
  const client = new AdsTestClient(istiod.xdsAddress, credentials, {
    'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
  });
  cleanups.push(() => client.close());
  return client;
}

const UNAUTHENTICATED = { code: grpc.status.UNAUTHENTICATED, details: 'authentication failure' };

describe('xDS authentication on the TLS port', () => {
  it("refuses a stream without a token with istiod's status and log line, and counts it", async ({
    startMock,
  }) => {
    const { istiod, logs } = await start(startMock);
    const stream = tlsClient(istiod).sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(await stream.done).toEqual(UNAUTHENTICATED);
    expect(logs.find((l) => l.startsWith('Failed to authenticate client from'))).toMatch(
      /Authenticator ClientCertAuthenticator: no verified chain is found; Authenticator KubeJWTAuthenticator: target JWT extraction error: no HTTP authorization header exists$/,
    );
    expect(istiod.streams()).toEqual([]);
    expect(await istiod.metrics.text()).toContain(
      'mock_istiod_auth_refusals_total{service="xds",reason="token"} 1',
    );
  });

  it('refuses a token with the wrong audience, on delta streams too', async ({ startMock }) => {
    const { istiod } = await start(startMock);
    const { token } = istiod.security.createToken({ audiences: ['kubernetes.default.svc'] });
    const stream = tlsClient(istiod).delta(bearer(token));
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(await stream.done).toEqual(UNAUTHENTICATED);
  });

  it("serves a stream carrying the pod's token", async ({ startMock }) => {
    const { istiod } = await start(startMock);
    const { token } = istiod.security.createToken();
    const cds = await requestClusters(tlsClient(istiod).sotw(bearer(token)));
    expect(cds.resources).toHaveLength(2);
  });

  it("refuses a token of another namespace or service account with istiod's PERMISSION_DENIED", async ({
    startMock,
  }) => {
    const { istiod, logs } = await start(startMock);
    const { token } = istiod.security.createToken({ namespace: 'shop', serviceAccount: 'orders' });
    const stream = tlsClient(istiod).sotw(bearer(token));
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    const message =
      'authorization failed: no identities ([spiffe://cluster.local/ns/shop/sa/orders]) matched default/';
    expect(await stream.done).toEqual({ code: grpc.status.PERMISSION_DENIED, details: message });
    expect(logs.some((l) => l.startsWith('Unauthorized XDS: '))).toBe(true);
    expect(istiod.streams()).toEqual([]);
    // The same token, for a proxy of that namespace and account, is served.
    const node = sidecarNode('orders-v1-0', 'shop');
    const shop = tlsClient(istiod).sotw(bearer(token));
    const cds = await requestClusters(shop, {
      node: { ...node, metadata: { ...node.metadata, SERVICE_ACCOUNT: 'orders' } },
    });
    expect(cds.resources).toHaveLength(2);
  });

  it("serves a client with a certificate from the mock's CA and no token (istioctl --cert-dir)", async ({
    startMock,
  }) => {
    const { istiod } = await start(startMock, { ca: { plaintext: false } });
    const { csr, keyPem } = await makeKeyAndCsr();
    const ca = caClient(istiod.xdsAddress, istiod.security.rootCert);
    cleanups.push(() => ca.close());
    const signed = await createCertificate(ca, { csr }, istiod.security.createToken().token);
    if (!signed.ok) throw new Error(`expected a certificate, got ${signed.details}`);
    const cds = await requestClusters(tlsClient(istiod, { keyPem, chain: signed.chain }).sotw());
    expect(cds.resources).toHaveLength(2);
  });

  it("answers istioctl's debug types over TLS to a client with a certificate, not to one without", async ({
    startMock,
  }) => {
    const { istiod } = await start(startMock);
    const { token } = istiod.security.createToken();
    await requestClusters(tlsClient(istiod).sotw(bearer(token)));
    const { csr, keyPem } = await makeKeyAndCsr();
    const ca = caClient(istiod.xdsAddress, istiod.security.rootCert);
    cleanups.push(() => ca.close());
    const signed = await createCertificate(ca, { csr }, token);
    if (!signed.ok) throw new Error(`expected a certificate, got ${signed.details}`);
    const debug = tlsClient(istiod, { keyPem, chain: signed.chain }).sotw();
    debug.send({ type_url: SYNCZ_DEBUG_TYPE, node: sidecarNode('test-1'), response_nonce: 'now' });
    const syncz = await debug.next();
    expect(syncz.resources.map((r) => r.type_url)).toEqual([CLIENT_CONFIG_TYPE]);
    const anonymous = tlsClient(istiod).sotw();
    anonymous.send({ type_url: SYNCZ_DEBUG_TYPE, node: sidecarNode('test-1') });
    expect(await anonymous.done).toEqual(UNAUTHENTICATED);
  });

  it('with xdsAuth: false, lets a stream without a token in (for teaching)', async ({
    startMock,
  }) => {
    const { istiod } = await start(startMock, { xdsAuth: false });
    const cds = await requestClusters(tlsClient(istiod).sotw());
    expect(cds.resources).toHaveLength(2);
    expect(istiod.security.xdsAuth).toBe(false);
  });

  it("a plaintext port authenticates nothing, as istiod's 15010", async ({
    startMock,
    connect,
  }) => {
    const { istiod } = await start(startMock, { tls: false });
    const client = connect(istiod);
    expect((await requestClusters(client.sotw())).resources).toHaveLength(2);
  });
});
