/**
 * xDS over TLS, as istiod serves 15012, against a real Envoy: with the mock's root
 * certificate in its `validation_context`, Envoy completes the TLS handshake (SNI
 * istiod.istio-system.svc, ALPN h2), ACKs CDS and LDS and goes LIVE; trusting another CA, it
 * refuses the mock's certificate, never opens a stream, stays PRE_INITIALIZING with
 * `control_plane.connected_state` 0 and counts the verification failures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { sidecarBootstrap, type TestEnvoy } from '../../src/testing/envoy.js';
import { freePorts } from '../../src/util/ports.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { prepareTlsMaterial } from '../../src/tls/tls-material.js';
import { TLS_FILES } from '../../src/tls/tls-files.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { SEED_POD_ENV } from '../../scripts/generate-envoy-configs.js';
import { useCli } from '../support/fixtures/cli.js';
import { it, type Fixtures } from '../support/fixtures/test.js';
import { get } from '../support/harness/lab.js';

const cli = useCli();
// Temporary directories; the mocks and the Envoys come from the fixtures, whose teardown
// stops the Envoys, closes the mocks and fails the test on anything left running.
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-tls-e2e-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startTlsMock(
  startMock: Fixtures['startMock'],
): Promise<{ istiod: TestMockIstiod; outboundPort: number }> {
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const istiod = await startMock({
    tls: { dir: tempDir() },
    resources: makeLabResources({ inboundPort, outboundPort }),
  });
  return { istiod, outboundPort };
}

async function startTlsEnvoy(
  startEnvoy: Fixtures['startEnvoy'],
  istiod: TestMockIstiod,
  rootCertPath: string,
  tlsServerName?: string,
  xdsToken?: string | null,
): Promise<TestEnvoy> {
  const envoy = await startEnvoy({
    bootstrap: sidecarBootstrap(istiod, {
      tlsRootCertPath: rootCertPath,
      tlsServerName,
      ...(xdsToken !== undefined && { xdsToken }),
    }),
    // Envoy says why a TLS handshake failed only at debug level, in its connection logger.
    extraArgs: ['--component-log-level', 'connection:debug'],
  });
  return envoy;
}

describe('xDS over TLS', () => {
  it('Envoy trusting the mock root completes the handshake, ACKs and goes LIVE', async ({
    startMock,
    startEnvoy,
  }) => {
    const { istiod, outboundPort } = await startTlsMock(startMock);
    const rootCertPath = istiod.security.rootCertPath as string;
    expect(rootCertPath.endsWith(TLS_FILES.rootCert)).toBe(true);

    const envoy = await startTlsEnvoy(startEnvoy, istiod, rootCertPath);
    await envoy.waitForState('LIVE');
    await istiod.waitForAck(CLUSTER_TYPE);
    await istiod.waitForAck(LISTENER_TYPE);
    expect(await envoy.stat('cluster.xds-grpc.ssl.handshake')).toBeGreaterThanOrEqual(1);
    expect(await envoy.stat('cluster.xds-grpc.ssl.fail_verify_error')).toBe(0);
    expect(await envoy.stat('control_plane.connected_state')).toBe(1);
    // The listeners came over the TLS stream: virtualOutbound answers as the lab says.
    expect(await get(`http://127.0.0.1:${outboundPort}/`)).toEqual({
      status: 503,
      body: 'no healthy upstream',
    });
  });

  it("Envoy without the pod's token is refused as istiod refuses it, and never gets config", async ({
    startMock,
    startEnvoy,
  }) => {
    const { istiod } = await startTlsMock(startMock);
    const envoy = await startTlsEnvoy(
      startEnvoy,
      istiod,
      istiod.security.rootCertPath as string,
      undefined,
      null,
    );
    await waitFor(
      async () =>
        (await istiod.metrics.text()).includes(
          'mock_istiod_auth_refusals_total{service="xds",reason="token"} 2',
        ) || undefined,
      { timeoutMs: 10_000, description: 'two refused streams (Envoy retries)' },
    );
    expect(istiod.journal.query({ kind: 'rejected' })[0]?.reason).toBe('authentication failure');
    expect(await envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    expect(istiod.journal.query({ kind: 'open' })).toEqual([]);
  });

  it('Envoy trusting another CA refuses the certificate and never gets config', async ({
    startMock,
    startEnvoy,
  }) => {
    const { istiod } = await startTlsMock(startMock);
    const other = tempDir();
    const made = await prepareTlsMaterial({
      dir: other,
      hosts: ['localhost'],
      trustDomain: 'elsewhere.local',
    });
    expect(made.ok).toBe(true);

    const envoy = await startTlsEnvoy(startEnvoy, istiod, join(other, TLS_FILES.rootCert));
    const failures = await envoy.waitForStat(
      'cluster.xds-grpc.ssl.fail_verify_error',
      (v) => Number(v) >= 2,
    );
    expect(Number(failures)).toBeGreaterThanOrEqual(2);
    expect(await envoy.stat('cluster.xds-grpc.ssl.handshake')).toBe(0);
    // Envoy counts a stream as connected while it is being set up, so between retries the
    // stat flickers to 1 for a moment: wait for the resting value.
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    // No stream ever reached the mock: the handshake failed before any gRPC call.
    expect(istiod.journal.query({ kind: 'open' })).toEqual([]);
    // Envoy's connection logger (at debug) names OpenSSL's verdict.
    await waitFor(() => envoy.logs().includes('CERTIFICATE_VERIFY_FAILED') || undefined, {
      timeoutMs: 5_000,
      description: "Envoy's log to report CERTIFICATE_VERIFY_FAILED",
    });
  });

  it("Envoy expecting another server name refuses istiod's certificate (SAN check)", async ({
    startMock,
    startEnvoy,
  }) => {
    const { istiod } = await startTlsMock(startMock);
    const envoy = await startTlsEnvoy(
      startEnvoy,
      istiod,
      istiod.security.rootCertPath as string,
      'istiod.other-namespace.svc',
    );
    await envoy.waitForStat('cluster.xds-grpc.ssl.fail_verify_san', (v) => Number(v) >= 1);
    // Envoy counts a stream as connected while it is being set up, so between retries the
    // stat flickers to 1 for a moment: wait for the resting value.
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0);
    expect(await envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    expect(istiod.journal.query({ kind: 'open' })).toEqual([]);
  });
});

function bootstrapCli(args: string[]) {
  return cli.run(['bootstrap', ...args], { podEnv: SEED_POD_ENV, timeoutMs: 30_000 });
}

describe('mock-istiod bootstrap --tls-root-cert', () => {
  it('writes a bootstrap the real Envoy validates, and one naming a missing root it rejects', async () => {
    const dir = tempDir();
    const made = await prepareTlsMaterial({
      dir,
      hosts: ['localhost'],
      trustDomain: 'cluster.local',
    });
    expect(made.ok).toBe(true);
    const ok = await bootstrapCli(['--tls-root-cert', join(dir, TLS_FILES.rootCert), '--validate']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/configuration '.+' OK/);

    // With the pod's token: sent as ADS initial metadata, and still valid for Envoy.
    const tokenFile = join(dir, 'istio-token');
    writeFileSync(tokenFile, 'header.payload.signature\n');
    const withToken = await bootstrapCli([
      '--tls-root-cert',
      join(dir, TLS_FILES.rootCert),
      '--token-file',
      tokenFile,
      '--format',
      'json',
      '--validate',
    ]);
    expect(withToken.code).toBe(0);
    expect(withToken.stdout).toContain('"value": "Bearer header.payload.signature"');

    const missing = join(dir, 'nowhere.pem');
    const bad = await bootstrapCli(['--tls-root-cert', missing, '--validate']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('envoy --mode validate rejected the bootstrap');
    expect(bad.stderr).toContain(missing);
  });
});
