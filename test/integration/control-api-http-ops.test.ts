/**
 * The operations a client in any language needs over HTTP, each against a started mock with
 * a token, through `connectMockIstiod` (the remote client: real HTTP) and, where the answer
 * shape is the point, plain `fetch` as another language would send it: the probes without the
 * token, `waitForAck` (an ACK, a NACK with Envoy's detail, a timeout), the state, the
 * journal's long poll, and certificates from the CA.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servingHosts } from '../../src/ca/security-options.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { prepareTlsMaterial } from '../../src/tls/tls-material.js';
import { describe, expect } from 'vitest';
import { connectMockIstiod } from '../../src/testing/remote.js';
import { isMockIstiodError } from '../../src/util/errors.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { makeKeyAndCsr } from '../support/fixtures/ca.js';
import { ack, handshake } from '../support/fixtures/handshake.js';
import { pathsOf, refusal } from '../support/fixtures/control-client.js';
import { it, test } from '../support/fixtures/test.js';

const TOKEN = 'ops-token';

describe('control operations over HTTP', () => {
  test.override({ mockOptions: { controlToken: TOKEN }, controlVia: 'remote' });

  it('answers /healthz and /ready without the token, and nothing else', async ({ mock }) => {
    const base = `http://127.0.0.1:${mock.addresses.control?.port}`;
    const healthz = await fetch(`${base}/healthz`);
    expect([healthz.status, await healthz.json()]).toEqual([200, { live: true }]);
    const ready = await fetch(`${base}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true }]);
    expect((await fetch(`${base}/control/state`)).status).toBe(401);
    expect((await fetch(`${base}/control/wait-for-ack?type=LDS`)).status).toBe(401);
    expect((await fetch(`${base}/ca/certificates`, { method: 'POST' })).status).toBe(401);
  });

  it('waitForAck answers an ACK of the current version, at once once it happened', async ({
    mock,
    ads,
    control,
  }) => {
    const stream = ads.sotw();
    const { lds } = await handshake(stream);
    const waiting = control.waitForAck({ type: 'LDS', timeout: '10s' });
    ack(stream, lds);
    const acked = await waiting;
    expect(acked).toMatchObject({
      result: 'ack',
      typeUrl: LISTENER_TYPE,
      version: lds.version_info,
      nodeId: expect.stringContaining('orders-v1-0') as string,
    });
    expect(acked.nack).toBeUndefined();
    // Already ACKed: answered at once; the same through the in-process client.
    expect(await mock.control.waitForAck({ type: CLUSTER_TYPE, node: 'sidecar~*' })).toMatchObject({
      result: 'ack',
      typeUrl: CLUSTER_TYPE,
    });
  });

  it("waitForAck answers a NACK with Envoy's error detail", async ({ ads, control }) => {
    const stream = ads.sotw();
    const { lds } = await handshake(stream);
    stream.send({
      type_url: LISTENER_TYPE,
      version_info: '',
      response_nonce: lds.nonce,
      error_detail: { code: 3, message: 'Error adding/updating listener(s) bad: no filters' },
    });
    const answer = await control.waitForAck({ type: 'LDS', timeout: 5000 });
    expect(answer).toMatchObject({
      result: 'nack',
      version: lds.version_info,
      nack: {
        code: 3,
        message: 'Error adding/updating listener(s) bad: no filters',
        keptVersion: '',
      },
    });
  });

  it('waitForAck times out (408; WAIT_TIMEOUT for a client) with a problem on timeout, saying what it saw', async ({
    ads,
    control,
  }) => {
    const stream = ads.sotw();
    await handshake(stream);
    const started = Date.now();
    const err = await control
      .waitForAck({ type: 'LDS', node: 'sidecar~*~orders-*', timeout: '300ms' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    if (!isMockIstiodError(err, 'WAIT_TIMEOUT')) throw err;
    expect(err.message).toMatch(/^timed out after 300 ms waiting for an ACK or NACK of LDS/);
    expect(pathsOf(err.problems)).toEqual(['timeout']);
    expect(err.problems[0]?.message).toMatch(/orders-v1-0.* acked nothing/);
    const bad = await refusal(control.waitForAck({ type: 'LDZ', timeout: 'soon' }));
    expect([bad.status, pathsOf(bad.problems)]).toEqual([400, ['type', 'timeout']]);
  });

  it('a wait still pending when the mock closes is answered at once, and close stays prompt', async ({
    startMock,
  }) => {
    const other = await startMock({ controlToken: TOKEN });
    const remote = await connectMockIstiod(`http://127.0.0.1:${other.addresses.control?.port}`, {
      token: TOKEN,
    });
    const listening = other.events.listenerCount('snapshot');
    const pending = remote.waitForAck({ type: 'LDS', timeout: '60s' }).catch((e: unknown) => e);
    await waitFor(() => other.events.listenerCount('snapshot') > listening, {
      description: 'the wait listening',
    });
    const started = Date.now();
    await other.close();
    const failed = await pending;
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(isMockIstiodError(failed, 'CONTROL_API_FAILED') && failed.message).toMatch(
      /failed \(503\) on GET \/control\/wait-for-ack: mock istiod closed while waiting/,
    );
  });

  it('state gives what the library reads: versions, and per stream and type sent, ACKed, NACKed', async ({
    mock,
    ads,
    control,
  }) => {
    const stream = ads.sotw();
    const { cds } = await handshake(stream);
    const state = await control.state();
    const versions = Object.fromEntries(
      mock
        .snapshot()
        .typeUrls()
        .map((t) => [t.endsWith('Cluster') ? 'CDS' : 'LDS', mock.snapshot().get(t).version]),
    );
    expect(state).toMatchObject({ withheld: false, serving: true, versions });
    const [one] = state.streams;
    expect(one).toMatchObject({
      protocol: 'sotw',
      clusterId: 'Kubernetes',
      istioVersion: '1.24.0',
    });
    const clusters = one?.types.find((t) => t.typeUrl === CLUSTER_TYPE);
    expect(clusters).toMatchObject({
      names: '*',
      current: cds.version_info,
      sent: cds.version_info,
      sentNonce: cds.nonce,
      acked: cds.version_info,
    });
    expect(Date.parse(clusters?.ackedAt ?? '')).toBeGreaterThan(0);
  });

  it('the journal long poll answers when an entry comes, or [] when wait runs out', async ({
    ads,
    control,
  }) => {
    const last = (await control.journal()).at(-1)?.seq ?? 0;
    const empty = Date.now();
    expect(await control.journal({ since: last, wait: '200ms' })).toEqual([]);
    expect(Date.now() - empty).toBeGreaterThanOrEqual(190);
    const polling = control.journal({ since: last, kind: 'ack', wait: '10s' });
    const stream = ads.sotw();
    await handshake(stream);
    const entries = await polling;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.kind === 'ack' && e.seq > last)).toBe(true);
  });

  it('issues a certificate for an identity, from a CSR or with a key made for it', async ({
    mock,
    control,
  }) => {
    const made = await control.issueCertificate({
      namespace: 'shop',
      serviceAccount: 'orders',
    });
    expect(made.identity).toBe('spiffe://cluster.local/ns/shop/sa/orders');
    expect(made.certChain).toHaveLength(2);
    expect(made.certChain[1]).toBe(made.rootCert);
    const leaf = new X509Certificate(made.certChain[0]!);
    const root = new X509Certificate(mock.security.rootCert);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('URI:spiffe://cluster.local/ns/shop/sa/orders');
    expect(leaf.checkPrivateKey(createPrivateKey(made.privateKey!))).toBe(true);
    expect(Date.parse(made.notAfter) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);

    // With the caller's own key, as a CSR.
    const { csr, keyPem } = await makeKeyAndCsr();
    const signed = await control.issueCertificate({ csr, ttlSeconds: 600 });
    expect(signed.privateKey).toBeUndefined();
    const own = new X509Certificate(signed.certChain[0]!);
    expect(own.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(own.subjectAltName).toBe('URI:spiffe://cluster.local/ns/default/sa/default');

    const bad = await refusal(
      control.issueCertificate({
        namespace: 'Shop!',
        ttlSeconds: 100 * 24 * 3600,
        csr: 'not a CSR',
        colour: 'blue',
      } as never),
    );
    expect(bad.status).toBe(400);
    expect(pathsOf(bad.problems)).toEqual(['colour', 'namespace', 'ttlSeconds', 'csr']);
    expect(bad.problems[2]?.message).toBe(
      'requested TTL 2400h0m0s is greater than the max allowed TTL 2160h0m0s',
    );
    expect(bad.problems[3]?.message).toBe('certificate signing request is not properly encoded');
  });

  it('refuses a certificate with 409 when the TLS directory has no CA key', async ({
    startMock,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-no-ca-key-'));
    try {
      const prepared = await prepareTlsMaterial({
        dir,
        hosts: servingHosts({ dir, hosts: [] }),
        trustDomain: 'cluster.local',
      });
      expect(prepared.ok).toBe(true);
      unlinkSync(join(dir, TLS_FILES.caKey));
      const other = await startMock({ tls: { dir } });
      const refused = await refusal(other.control.issueCertificate({ namespace: 'shop' }));
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatch(/CA cannot sign: .*no ca-key\.pem/);
      await other.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
