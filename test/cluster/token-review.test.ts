/**
 * The mock's CA reviewing tokens with the real cluster's API server, as istiod does: the mock
 * runs on this host (`serve --tls --token-review <kubeconfig>`), and each token is one a user
 * would meet. Seen as a user sees it: the gRPC status, the `x-mock-istiod-reason` trailer and
 * the mock's log line, istiod's (`Failed to authenticate client from …: Authenticator
 * KubeJWTAuthenticator: failed to validate the JWT from cluster "Kubernetes": <reason>`), where
 * the reason is what the API server's TokenReview said:
 *
 * - a ServiceAccount's token for `istio-ca`: signed for `spiffe://cluster.local/ns/<ns>/sa/<sa>`;
 * - a token for another audience, a token of a deleted ServiceAccount, garbage, a token the
 *   mock itself signed: refused with the API server's reason;
 * - the API server unreachable: refused, the reason naming the failure, the mock still serving;
 * - a kubeconfig whose user may not create tokenreviews: refused, "… is forbidden …";
 * - xDS streams on the TLS port reviewed the same way: a ServiceAccount's token is served for
 *   its namespace and account, a token the cluster refuses gets istiod's "authentication
 *   failure" and nothing else.
 */
import * as grpc from '@grpc/grpc-js';
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { CaClient } from '../../src/ca/ca-proto.js';
import { AUTHENTICATE_FAILURE } from '../../src/ca/ca-service.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import {
  bearer,
  caClient,
  createCertificate,
  makeCsr,
  type CsrOutcome,
} from '../support/fixtures/ca.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import {
  FREE_SERVE_PORTS,
  JSON_LOGS,
  logLines,
  spawnCli,
  waitForServing,
  type CliRun,
  type LogLine,
} from '../support/fixtures/cli.js';
import { KUBECONFIG, kubectl } from './support/kube.js';

const NS = `token-review-${randomBytes(3).toString('hex')}`;
const LOG_PREFIX = 'Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster';

interface Mock {
  run: CliRun;
  xds: string;
  client: CaClient;
  controlPort: number;
  tlsDir: string;
}

let work = '';
const mocks: Mock[] = [];

/** `mock-istiod serve --tls-dir … --token-review <kubeconfig>` on free loopback ports. */
async function startMock(name: string, kubeconfig: string): Promise<Mock> {
  const tlsDir = join(work, `tls-${name}`);
  const run = spawnCli(
    ['serve', '--tls-dir', tlsDir, '--token-review', kubeconfig, ...FREE_SERVE_PORTS, ...JSON_LOGS],
    {},
  );
  const serving = await waitForServing(run, 30_000).catch((err: unknown) => {
    run.child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}; stderr: ${run.stderr()}`);
  });
  const client = caClient(serving.xds, readFileSync(join(tlsDir, TLS_FILES.rootCert), 'utf8'));
  const mock = { run, xds: serving.xds, client, controlPort: serving.control?.port ?? 0, tlsDir };
  mocks.push(mock);
  return mock;
}

/** The cluster's kubeconfig with another server, or another user (absolute paths stay valid). */
function kubeconfigWith(name: string, change: { server?: string; token?: string }): string {
  const config = parse(readFileSync(KUBECONFIG, 'utf8')) as {
    clusters: { cluster: Record<string, unknown> }[];
    users: { user: Record<string, unknown> }[];
  };
  for (const { cluster } of config.clusters) if (change.server) cluster['server'] = change.server;
  if (change.token) for (const entry of config.users) entry.user = { token: change.token };
  const path = join(work, `${name}.kubeconfig`);
  writeFileSync(path, stringify(config));
  return path;
}

async function tokenFor(sa: string, audience = 'istio-ca'): Promise<string> {
  return (await kubectl(['-n', NS, 'create', 'token', sa, '--audience', audience])).trim();
}

async function askWith(mock: Mock, token: string): Promise<CsrOutcome> {
  return createCertificate(mock.client, { csr: await makeCsr() }, token);
}

/** The refusal a user sees, and the mock's log line for it, istiod's words around the reason. */
async function expectRefused(mock: Mock, outcome: CsrOutcome, reason: string): Promise<void> {
  expect(outcome).toEqual({
    ok: false,
    code: grpc.status.UNAUTHENTICATED,
    details: AUTHENTICATE_FAILURE,
    reason,
  });
  const line = await waitFor(
    () => logLines(mock.run).find((l: LogLine) => l.level === 40 && l['reason'] === reason),
    { timeoutMs: 5_000, description: `the mock's warning for "${reason}"` },
  );
  expect(line.msg).toBe(
    `Failed to authenticate client from ${String(line['peer'])}: ${LOG_PREFIX} "Kubernetes": ${reason}`,
  );
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

let mock: Mock;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mock-istiod-token-review-'));
  await kubectl(['create', 'namespace', NS]);
  for (const sa of ['orders', 'gone', 'nobody']) {
    await kubectl(['-n', NS, 'create', 'serviceaccount', sa]);
  }
  mock = await startMock('admin', KUBECONFIG);
});

afterAll(async () => {
  for (const { run, client } of mocks) {
    client.close();
    run.child.kill('SIGTERM');
    await run.exited(10_000).catch(() => run.child.kill('SIGKILL'));
  }
  await kubectl(['delete', 'namespace', NS, '--wait=false'], { timeoutMs: 60_000 }).catch(
    () => undefined,
  );
  if (work !== '') rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the CA reviewing tokens with the real API server', () => {
  it("signs a ServiceAccount's istio-ca token for that account's SPIFFE identity", async () => {
    const outcome = await askWith(mock, await tokenFor('orders'));
    if (!outcome.ok) throw new Error(`refused: ${outcome.details} (${outcome.reason})`);
    expect(new X509Certificate(outcome.chain[0] as string).subjectAltName).toBe(
      `URI:spiffe://cluster.local/ns/${NS}/sa/orders`,
    );
  });

  it('refuses a token for another audience with the API server reason', async () => {
    const outcome = await askWith(mock, await tokenFor('orders', 'other'));
    await expectRefused(
      mock,
      outcome,
      'the service account authentication returns an error: [invalid bearer token, token audiences ["other"] is invalid for the target audiences ["istio-ca"]]',
    );
  });

  it('refuses the token of a ServiceAccount deleted since', async () => {
    const token = await tokenFor('gone');
    expect((await askWith(mock, token)).ok).toBe(true);
    await kubectl(['-n', NS, 'delete', 'serviceaccount', 'gone']);
    // The API server reads ServiceAccounts through its cache: the deletion lands there soon.
    const outcome = await waitFor(
      async () => {
        const answer = await askWith(mock, token);
        return !answer.ok && answer;
      },
      { timeoutMs: 30_000, intervalMs: 500, description: 'a refusal once the account is gone' },
    );
    await expectRefused(
      mock,
      outcome,
      'the service account authentication returns an error: [invalid bearer token, serviceaccounts "gone" not found]',
    );
  });

  it('refuses a token that is no JWT', async () => {
    await expectRefused(
      mock,
      await askWith(mock, 'garbage'),
      'the service account authentication returns an error: invalid bearer token',
    );
  });

  it("refuses a token the mock's own key signed: the cluster does not know that key", async () => {
    const minted = spawnCli(['token', '--tls-dir', mock.tlsDir, '--ns', NS, '--sa', 'orders'], {});
    expect(await minted.exited()).toBe(0);
    await expectRefused(
      mock,
      await askWith(mock, minted.stdout().trim()),
      'the service account authentication returns an error: [invalid bearer token, go-jose/go-jose: error in cryptographic primitive]',
    );
  });
});

describe('the CA when the review itself fails', () => {
  it('the API server unreachable: refused, the reason names the failure, the mock keeps serving', async () => {
    const [port] = await freePorts(1);
    const server = `https://127.0.0.1:${port}`;
    const lost = await startMock('closed', kubeconfigWith('closed', { server }));
    await expectRefused(
      lost,
      await askWith(lost, await tokenFor('orders')),
      `the TokenReview at ${server} failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(await getStatus(`http://127.0.0.1:${lost.controlPort}/ready`)).toBe(200);
    expect(lost.run.child.exitCode).toBeNull();
  });

  it('a kubeconfig whose user may not create tokenreviews: the API server says forbidden', async () => {
    const token = (await kubectl(['-n', NS, 'create', 'token', 'nobody'])).trim();
    const denied = await startMock('nobody', kubeconfigWith('nobody', { token }));
    await expectRefused(
      denied,
      await askWith(denied, await tokenFor('orders')),
      `tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:${NS}:nobody" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope`,
    );
  });
});

describe('xDS streams reviewed with the real API server', () => {
  /** An ADS client over TLS to the mock, trusting its root, for the name on its certificate. */
  function adsClient(): AdsTestClient {
    const root = readFileSync(join(mock.tlsDir, TLS_FILES.rootCert));
    return new AdsTestClient(mock.xds, grpc.credentials.createSsl(root), {
      'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
    });
  }
  const node = () => {
    const base = sidecarNode('orders-0', NS);
    return { ...base, metadata: { ...base.metadata, SERVICE_ACCOUNT: 'orders' } };
  };

  it("serves a stream carrying a ServiceAccount's istio-ca token", async () => {
    const client = adsClient();
    try {
      const stream = client.sotw(bearer(await tokenFor('orders')));
      expect(
        (await requestClusters(stream, { node: node(), timeoutMs: 10_000 })).resources,
      ).not.toHaveLength(0);
    } finally {
      client.close();
    }
  });

  it("refuses a stream whose token the cluster refuses, with istiod's authentication failure", async () => {
    const client = adsClient();
    // The CA's refusals of such a token (above) log their own line: read only what follows.
    const before = logLines(mock.run).length;
    try {
      const stream = client.sotw(bearer(await tokenFor('orders', 'other')));
      stream.send({ type_url: CLUSTER_TYPE, node: node() });
      expect(await stream.done).toEqual({
        code: grpc.status.UNAUTHENTICATED,
        details: 'authentication failure',
      });
    } finally {
      client.close();
    }
    const line = await waitFor(
      () =>
        logLines(mock.run)
          .slice(before)
          .find((l: LogLine) => l.msg.includes('token audiences ["other"] is invalid')),
      { timeoutMs: 5_000, description: "the mock's warning for the stream" },
    );
    expect(line.msg).toMatch(
      /^Failed to authenticate client from .*: Authenticator ClientCertAuthenticator: no verified chain is found; Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster "Kubernetes": the service account authentication returns an error: /,
    );
  });
});
