/**
 * `mock-istiod status` reads both sides: the mock's view and the real Envoy's admin port.
 * Withheld: connected_state 1 and PRE_INITIALIZING; released: LIVE with the version the
 * mock sent; the mock gone: connected_state 0, still read from Envoy.
 */
import { describe, expect } from 'vitest';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { collectStatus, type StatusReport } from '../../src/status/status-report.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { freePorts } from '../../src/util/ports.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { useCli } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';
import { useLab } from '../support/harness/lab.js';

const cli = useCli();
const labs = useLab();

/** Runs the real CLI: `status -o json`, and returns its exit code and report. */
async function statusCli(args: string[]): Promise<{ code: number | null; report: StatusReport }> {
  const { code, stdout, stderr } = await cli.run(['status', '-o', 'json', ...args]);
  // stderr is not part of what is checked; it is shown when the report cannot be read.
  if (stdout.trim() === '') throw new Error(`status printed no report (exit ${code}): ${stderr}`);
  return { code, report: JSON.parse(stdout) as StatusReport };
}

function typeOf(report: StatusReport, type: string) {
  return report.proxies[0]?.mock?.types.find((t) => t.type === type);
}

describe('mock-istiod status against a real Envoy', () => {
  it('shows connected_state 1 and PRE_INITIALIZING while withheld, LIVE after release, connected_state 0 once the mock is gone', async () => {
    const lab = await labs.start({ withholdFirst: true });
    const { envoy, istiod } = lab;
    const args = [
      '--control-port',
      String(istiod.addresses.control?.port),
      '--admin',
      envoy.adminUrl,
    ];
    await waitFor(async () => (await envoy.stat('control_plane.connected_state')) === 1, {
      description: 'Envoy to connect',
    });

    const withheld = await statusCli(args);
    expect(withheld.code).toBe(0);
    expect(withheld.report.mock).toMatchObject({ reachable: true, withheld: true });
    expect(withheld.report.proxies).toHaveLength(1);
    expect(withheld.report.proxies[0]).toMatchObject({
      name: 'orders-v1-0.default',
      envoy: {
        reachable: true,
        source: 'flag',
        state: 'PRE_INITIALIZING',
        stats: {
          'control_plane.connected_state': 1,
          'cluster_manager.cds.update_success': 0,
          'cluster_manager.cds.update_rejected': 0,
        },
      },
    });
    expect(typeOf(withheld.report, 'CDS')?.status).toBe('NOT SENT');

    await istiod.control.release();
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    const live = await collectStatus({
      control: `127.0.0.1:${istiod.addresses.control?.port}`,
      admins: [envoy.adminUrl],
    });
    const cdsVersion = istiod.snapshot().get(CLUSTER_TYPE).version;
    expect(live.proxies[0]?.envoy).toMatchObject({
      state: 'LIVE',
      stats: {
        'control_plane.connected_state': 1,
        'cluster_manager.cds.update_success': 1,
        'cluster_manager.cds.version_text': cdsVersion,
        'listener_manager.lds.update_success': 1,
        'listener_manager.lds.version_text': istiod.snapshot().get(LISTENER_TYPE).version,
      },
    });
    expect(typeOf(live, 'CDS')).toMatchObject({
      status: 'SYNCED',
      sent: { version: cdsVersion },
      acked: { version: cdsVersion },
    });

    await istiod.close();
    const gone = await waitFor(
      async () => {
        const result = await statusCli(args);
        const connected = result.report.proxies[0]?.envoy?.stats['control_plane.connected_state'];
        return connected === 0 && result;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: 'status to show connected_state 0' },
    );
    expect(gone.code).toBe(1);
    expect(gone.report.mock.reachable).toBe(false);
    expect(gone.report.proxies[0]).toMatchObject({
      name: 'orders-v1-0.default',
      envoy: { state: 'LIVE' },
    });
    expect(gone.report.proxies[0]?.mock).toBeUndefined();
  });

  it('finds the admin port in the node metadata (ENVOY_ADMIN_ADDRESS) without --admin', async ({
    startMock,
    startEnvoy,
  }) => {
    const [adminPort, inboundPort, outboundPort] = (await freePorts(3)) as [number, number, number];
    const istiod = await startMock({
      resources: makeLabResources({ inboundPort, outboundPort }),
    });
    const envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({
        discoveryPort: istiod.addresses.xds.port,
        adminPort,
        metadata: { ENVOY_ADMIN_ADDRESS: `127.0.0.1:${adminPort}` },
      }),
    });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    await istiod.waitForAck(LISTENER_TYPE);
    const report = await collectStatus({
      control: `127.0.0.1:${istiod.addresses.control?.port}`,
      admins: [],
    });
    expect(report.proxies).toHaveLength(1);
    expect(report.proxies[0]?.envoy).toMatchObject({
      admin: `http://127.0.0.1:${adminPort}`,
      source: 'metadata',
      state: 'LIVE',
      nodeId: report.proxies[0]?.nodeId,
      stats: { 'control_plane.connected_state': 1 },
    });
  });
});
