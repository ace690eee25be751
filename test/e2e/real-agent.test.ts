/**
 * The REAL pilot-agent (built by `npm run install-istio`) and real Envoy against the mock
 * serving TLS with its CA: pilot-agent signs its CSR with the mock's CA using the mock's
 * token, writes Envoy's bootstrap from Istio's own template, proxies xDS (delta by default,
 * SotW with ISTIO_DELTA_XDS=false), and Envoy goes LIVE and carries the lab's traffic. While
 * the mock withholds, the pod is seen the three ways a cluster sees it.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { get } from '../support/harness/lab.js';
import { POD_ENV, POD_NODE_ID, useRealLab, type RealLab } from '../support/harness/real-agent.js';
import { podBootstrapInput } from '../../src/cli/pod/pod-flags.js';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import type { JsonObject } from '../../src/bootstrap/proto-json.js';

const NOT_RECEIVED =
  'Envoy proxy is NOT ready: config not received from XDS server (is Istiod running?): ' +
  'cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected';

const labs = useRealLab();

/** The lab's traffic through pilot-agent's Envoy: inbound reaches the app, outbound has none. */
async function expectLabTraffic(lab: RealLab): Promise<void> {
  expect(await get(lab.inboundUrl('/orders'))).toEqual({
    status: 200,
    body: `ok:${lab.ports.appPort} /orders`,
  });
  expect(await get(lab.outboundUrl('/'))).toEqual({ status: 503, body: 'no healthy upstream' });
}

/** The one stream the mock sees: pilot-agent's, for the pod's node id. */
function onlyStream(lab: RealLab) {
  const streams = lab.istiod.streams();
  expect(streams.map((s) => s.proxy.nodeId)).toEqual([POD_NODE_ID]);
  return streams[0];
}

describe('the real pilot-agent against the mock', () => {
  it('TLS + CA + token: the CSR is signed, Envoy goes LIVE over delta and carries the lab', async () => {
    const lab = await labs.start();
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    await lab.istiod.waitForAck(CLUSTER_TYPE);
    await lab.istiod.waitForAck(LISTENER_TYPE);
    expect(onlyStream(lab)?.protocol).toBe('delta');
    // pilot-agent put ISTIO_META_ENVOY_ADMIN_ADDRESS in the node: the live page finds Envoy.
    expect(onlyStream(lab)?.proxy.metadata['ENVOY_ADMIN_ADDRESS']).toBe(
      `127.0.0.1:${lab.agent.ports.admin}`,
    );
    // pilot-agent's upstream is TLS to the mock; Envoy reaches pilot-agent over a Unix socket.
    expect(await lab.agent.envoy.stat('control_plane.connected_state')).toBe(1);
    await expectLabTraffic(lab);
    await lab.agent.waitForPod((view) => view.ready === 2);
    // pilot-agent asks the mock's CA for its workload certificate with the token, at start
    // and beside xDS: its log line may come after the pod is ready.
    await waitFor(
      () =>
        /generated new workload certificate\s+resourceName=default/.test(lab.agent.envoy.logs()),
      { description: "pilot-agent's line for its signed workload certificate" },
    );
    expect(lab.mockLog()).toContain(
      'CSR successfully signed, sans [spiffe://cluster.local/ns/default/sa/default].',
    );
    // Istio's own template wrote the bootstrap pilot-agent started Envoy with.
    const bootstrap = await lab.agent.envoy.configDump();
    expect(JSON.stringify(bootstrap)).toContain('./etc/istio/proxy/XDS');
  });

  it('SotW when ISTIO_DELTA_XDS=false: the same LIVE Envoy and traffic', async () => {
    // Boolean metadata written loosely, as a pod spec may: pilot-agent normalises it, and
    // `mock-istiod bootstrap` writes the same for the same variables.
    const booleans = {
      ISTIO_META_DNS_CAPTURE: 'True',
      ISTIO_META_DNS_AUTO_ALLOCATE: '1',
      ISTIO_META_ENABLE_HBONE: '0',
    };
    const lab = await labs.start({ agent: { xdsMode: 'sotw' }, podEnv: booleans });
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    await lab.istiod.waitForAck(LISTENER_TYPE);
    expect(onlyStream(lab)?.protocol).toBe('sotw');
    await expectLabTraffic(lab);
    const input = podBootstrapInput({}, { ...POD_ENV, ...booleans });
    if (!input.ok) throw new Error(input.message);
    const ours = (makeSidecarBootstrap(input.options)['node'] as { metadata: JsonObject }).metadata;
    const theirs = onlyStream(lab)?.proxy.metadata ?? {};
    for (const key of ['DNS_CAPTURE', 'DNS_AUTO_ALLOCATE', 'ENABLE_HBONE']) {
      expect([key, ours[key]]).toEqual([key, theirs[key]]);
    }
    expect([theirs['DNS_CAPTURE'], theirs['ENABLE_HBONE']]).toEqual(['true', '0']);
  });

  it('withheld: 15020 answers 503 and pilot-agent logs why, 15021 refuses, pod 1/2; released: 200, 2/2', async () => {
    const lab = await labs.start({ mock: { withholdFirst: true } });
    const { agent } = lab;
    await agent.envoy.waitForStat('control_plane.connected_state', (v) => v === 1, {
      timeoutMs: 30_000,
    });
    expect(await get(agent.statusUrl)).toEqual({ status: 503, body: '' });
    await waitFor(() => agent.envoy.logs().includes(NOT_RECEIVED), {
      description: "pilot-agent's NOT ready line in its log",
    });
    // Envoy's readiness listener accepts connections only once Envoy is LIVE.
    expect(await get(agent.readinessUrl)).toEqual({ error: 'ECONNREFUSED' });
    const view = await agent.waitForPod((v) => v.lastProbe !== '');
    expect(view).toMatchObject({ ready: 1, total: 2, status: 'Running' });
    expect(view.lastProbe).toMatch(/connect: connection refused$/);
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');

    await lab.istiod.control.release();
    await agent.waitForPod((v) => v.ready === 2);
    expect(await get(agent.readinessUrl)).toEqual({ status: 200, body: '' });
    expect(await get(agent.statusUrl)).toEqual({ status: 200, body: '' });
    await expectLabTraffic(lab);
  });
});
