/**
 * xDS streams on the TLS port reviewed by a Kubernetes API server (`ca.tokenReview`, the CLI's
 * `--token-review`), as istiod's KubeJWTAuthenticator reviews them: the stand-in API server on
 * loopback (test/support/fixtures/kube-api.ts) plays the cluster. A token it authenticates is
 * served for its service account; one it refuses, or none, ends the stream with istiod's
 * UNAUTHENTICATED "authentication failure". The review is an HTTP call: the stream waits for
 * it reading nothing, other streams go on meanwhile, and an API server that never answers
 * refuses the stream at the review's deadline instead of leaving it open.
 */
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { afterEach, describe, expect } from 'vitest';
import { DOWN_MESSAGE } from '../../src/target/operation-target.js';
import { TOKEN_REVIEW_TIMEOUT_MS } from '../../src/ca/kube-token-review.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { bearer } from '../support/fixtures/ca.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { serviceAccount, startApiServer, type ReviewAnswer } from '../support/fixtures/kube-api.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const UNAUTHENTICATED = { code: grpc.status.UNAUTHENTICATED, details: 'authentication failure' };
const NO_CERTIFICATE = 'Authenticator ClientCertAuthenticator: no verified chain is found';

/** What the stand-in API server says of the tokens these tests send. */
function answers(token: string): ReviewAnswer {
  if (token === 'pod-token') return serviceAccount('default', 'default');
  if (token === 'slow-token') return 'hold';
  return { authenticated: false, error: 'invalid bearer token' };
}

/** A TLS mock reviewing tokens with a stand-in API server, and the lines it logs. */
async function start(startMock: Fixtures['startMock']) {
  const api = await startApiServer(answers);
  cleanups.push(() => api.close());
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  const istiod = await startMock({
    tls: true,
    ca: { tokenReview: { kubeconfig: api.kubeconfig } },
    logger: pino(sink),
  });
  return { istiod, logs, api };
}

function tlsClient(istiod: TestMockIstiod): AdsTestClient {
  const client = new AdsTestClient(
    istiod.xdsAddress,
    grpc.credentials.createSsl(Buffer.from(istiod.security.rootCert)),
    { 'grpc.ssl_target_name_override': 'istiod.istio-system.svc' },
  );
  cleanups.push(() => client.close());
  return client;
}

describe('xDS streams reviewed with TokenReview', () => {
  it('serves a stream whose token the API server authenticates, for that service account', async ({
    startMock,
  }) => {
    const { istiod, api } = await start(startMock);
    // Not a JWT at all: only the API server can say whose it is.
    const cds = await requestClusters(tlsClient(istiod).sotw(bearer('pod-token')));
    expect(cds.resources).toHaveLength(2);
    expect(api.reviewed).toEqual(['pod-token']);
    // The identity is the reviewed account's: a proxy of another namespace is not authorized.
    const other = tlsClient(istiod).sotw(bearer('pod-token'));
    other.send({ type_url: CLUSTER_TYPE, node: sidecarNode('orders-v1-0', 'shop') });
    expect(await other.done).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      details:
        'authorization failed: no identities ([spiffe://cluster.local/ns/default/sa/default]) matched shop/',
    });
  });

  it("a token the API server refuses: istiod's status, and its log line with the API server's reason", async ({
    startMock,
  }) => {
    const { istiod, logs } = await start(startMock);
    const stream = tlsClient(istiod).delta(bearer('forged-token'));
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(await stream.done).toEqual(UNAUTHENTICATED);
    expect(logs.find((l) => l.startsWith('Failed to authenticate client from'))).toMatch(
      `${NO_CERTIFICATE}; Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster "Kubernetes": the service account authentication returns an error: invalid bearer token`,
    );
    expect(istiod.streams()).toEqual([]);
  });

  it('no token: refused without asking the API server', async ({ startMock }) => {
    const { istiod, api } = await start(startMock);
    const stream = tlsClient(istiod).sotw();
    stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    expect(await stream.done).toEqual(UNAUTHENTICATED);
    expect(api.reviewed).toEqual([]);
  });

  it('a slow API server: the stream reads nothing while it waits, others are served, then it is refused at the deadline', async ({
    startMock,
  }) => {
    const { istiod, logs, api } = await start(startMock);
    const client = tlsClient(istiod);
    const slow = client.sotw(bearer('slow-token'));
    slow.send({ type_url: CLUSTER_TYPE, node: sidecarNode('slow-0') });
    const asked = Date.now();
    await waitFor(() => api.reviewed.includes('slow-token'), {
      timeoutMs: 5_000,
      description: 'the review of the slow stream under way',
    });
    // Meanwhile another stream is reviewed and served, and the waiting one is no proxy yet.
    const cds = await requestClusters(client.sotw(bearer('pod-token')));
    expect(cds.resources).toHaveLength(2);
    expect(istiod.streams().map((s) => s.proxy.nodeId)).toEqual([sidecarNode().id]);
    expect(await slow.done).toEqual(UNAUTHENTICATED);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(TOKEN_REVIEW_TIMEOUT_MS - 500);
    expect(logs.find((l) => l.startsWith('Failed to authenticate client from'))).toContain(
      `the TokenReview at ${api.server} failed: no answer within ${TOKEN_REVIEW_TIMEOUT_MS} ms`,
    );
    expect(istiod.streams()).toHaveLength(1);
  });
});

describe('a stream waiting for its review when the port closes', () => {
  it('ends with the closing status instead of waiting out the review', async ({ startMock }) => {
    const { istiod, api } = await start(startMock);
    const slow = tlsClient(istiod).sotw(bearer('slow-token'));
    slow.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
    await waitFor(() => api.reviewed.includes('slow-token'), {
      timeoutMs: 5_000,
      description: 'the review under way',
    });
    await istiod.control.down();
    expect(await slow.done).toEqual({ code: grpc.status.UNAVAILABLE, details: DOWN_MESSAGE });
    expect(istiod.streams()).toEqual([]);
  });
});
