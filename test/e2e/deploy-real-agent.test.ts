/**
 * deploy/'s Deployment (its command line, Secret and ConfigMap, test/support/harness/deploy-pod.ts)
 * met by the real pilot-agent and Envoy as a pod in a cluster would meet it: the pod's token
 * signed by a key that is not the mock's (as the cluster signs it), and the certificate
 * checked for the Service's name (`ISTIOD_SAN`, as when dialing
 * mock-istiod.istio-system.svc). What docs/kubernetes.md says happens: the xDS stream is let
 * in (`--xds-auth=off`), the ConfigMap's timeline holds the first sidecar's configuration for
 * 10 s, then Envoy goes LIVE and serves; the CSR is refused.
 *
 * Only the ports differ from the ConfigMap's resources: the lab's listeners on free loopback
 * ports instead of 0.0.0.0:15006 and :15001.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { startPilotAgent } from '../../src/envoy/pilot-agent.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { JSON_LOGS, logLines, useCli, waitForServing } from '../support/fixtures/cli.js';
import { layOutPod, SERVICE_HOST } from '../support/harness/deploy-pod.js';
import { freeLabPorts } from '../support/harness/lab.js';
import { POD_ENV, requireIstio } from '../support/harness/real-agent.js';

const CSR_REFUSED =
  'citadelclient\tfailed to sign CSR: create certificate: rpc error: code = Unauthenticated desc = request authenticate failure';

describe("deploy/'s Deployment and the real pilot-agent, as in a cluster", () => {
  const cli = useCli();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  it("a cluster-signed token: config after the timeline's 10 s hold, LIVE, CSR refused", async () => {
    const istio = requireIstio();
    const root = mkdtempSync(join(tmpdir(), 'mock-istiod-pod-'));
    cleanups.push(() => Promise.resolve(rmSync(root, { recursive: true, force: true })));
    const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const ports = await freeLabPorts(upstream.port);

    const resources = { 'resources.yaml': stringify({ resources: makeLabResources(ports) }) };
    const pod = await layOutPod(root, cli, { token: 'control-token', resources });
    const mock = cli.start([...pod.args, ...JSON_LOGS], { podEnv: pod.env });
    const serving = await waitForServing(mock);

    // The pod's token, signed with another directory's key: the mock cannot verify it.
    const other = join(root, 'cluster');
    expect((await cli.run(['certs', '--tls-dir', other])).code).toBe(0);
    const minted = await cli.run([
      'token',
      '--tls-dir',
      other,
      '--ns',
      'default',
      '--sa',
      'default',
    ]);
    expect(minted.code, minted.stderr).toBe(0);

    const agent = await startPilotAgent({
      podEnv: { ...POD_ENV, ISTIOD_SAN: SERVICE_HOST },
      discoveryAddress: serving.xds,
      rootCert: pod.secret['root-cert.pem']!,
      token: minted.stdout.trim(),
      istio,
      ports: { admin: 0, status: 0, readiness: 0, prometheus: 0 },
      probeIntervalMs: 200,
    });
    cleanups.push(() => agent.stop());

    // The timeline's first step holds the first stream: connected, nothing served yet.
    await waitFor(() => logLines(mock).find((l) => l.msg.startsWith('step 1: Envoy waits')), {
      timeoutMs: 30_000,
      description: "the timeline's first step on the first stream",
    });
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    await agent.envoy.waitForLive({ timeoutMs: 30_000 });
    expect(logLines(mock).map((l) => l.msg)).toContain('step 2: released, Envoy goes LIVE');

    const response = await fetch(`http://127.0.0.1:${ports.inboundPort}/orders`);
    expect([response.status, await response.text()]).toEqual([200, `ok:${ports.appPort} /orders`]);
    await waitFor(() => agent.envoy.logs().includes(CSR_REFUSED), {
      timeoutMs: 30_000,
      description: "pilot-agent's line for its refused CSR",
    });
  });

  it("the certificate is checked for the Service's name: another name is refused", async () => {
    const istio = requireIstio();
    const root = mkdtempSync(join(tmpdir(), 'mock-istiod-pod-'));
    cleanups.push(() => Promise.resolve(rmSync(root, { recursive: true, force: true })));
    const pod = await layOutPod(root, cli, { token: 'control-token' });
    const mock = cli.start([...pod.args, ...JSON_LOGS], { podEnv: pod.env });
    const serving = await waitForServing(mock);
    const agent = await startPilotAgent({
      podEnv: { ...POD_ENV, ISTIOD_SAN: 'other.istio-system.svc' },
      discoveryAddress: serving.xds,
      rootCert: pod.secret['root-cert.pem']!,
      token: undefined,
      istio,
      ports: { admin: 0, status: 0, readiness: 0, prometheus: 0 },
      probeIntervalMs: 200,
    });
    cleanups.push(() => agent.stop());
    const refused =
      'x509: certificate is valid for istiod.istio-system.svc, localhost, mock-istiod.istio-system.svc, not other.istio-system.svc';
    await waitFor(() => agent.envoy.logs().includes(refused), {
      timeoutMs: 30_000,
      description: "pilot-agent's line for a certificate without the name it dials",
    });
    // Nothing got through: no stream on the mock, Envoy without a configuration.
    const control = `http://127.0.0.1:${serving.control!.port}/control/state`;
    const state = await fetch(control, { headers: { authorization: 'Bearer control-token' } });
    expect(((await state.json()) as { streams: unknown[] }).streams).toEqual([]);
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');
  });
});
