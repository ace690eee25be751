/**
 * deploy/'s Deployment (its command line, Secret and ConfigMap, test/support/harness/deploy-pod.ts)
 * met by the real pilot-agent and Envoy as a pod in a cluster would meet it: the pod's token
 * signed by a key that is not the mock's (as the cluster signs it) and reviewed by the
 * cluster's API server (a stand-in on loopback, test/support/fixtures/kube-api.ts, where the
 * pod's `--token-review=in-cluster` would ask the real one), and the certificate checked for
 * the Service's name (`ISTIOD_SAN`, as when dialing mock-istiod.istio-system.svc). What
 * docs/kubernetes.md says happens: the xDS stream is authenticated by that review, the
 * ConfigMap's timeline holds the first sidecar's configuration for 10 s, then Envoy goes LIVE
 * and serves, and the CSR is signed; a token the cluster did not sign gets nothing, with
 * istiod's "authentication failure".
 *
 * Only the ports differ from the ConfigMap's resources: the lab's listeners on free loopback
 * ports instead of 0.0.0.0:15006 and :15001.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startLabUpstream } from '../../scripts/lab-upstream.js';
import { startPilotAgent } from '../../src/envoy/pilot-agent.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { waitFor } from '../../src/util/wait.js';
import { JSON_LOGS, logLines, useCli, waitForServing } from '../support/fixtures/cli.js';
import { signedBy, startApiServer } from '../support/fixtures/kube-api.js';
import { layOutPod, SERVICE_HOST } from '../support/harness/deploy-pod.js';
import { freeLabPorts } from '../support/harness/lab.js';
import { POD_ENV, requireIstio } from '../support/harness/real-agent.js';

const CSR_SIGNED = 'generated new workload certificate';
const XDS_REFUSED =
  'upstream terminated with unexpected error rpc error: code = Unauthenticated desc = authentication failure';

describe("deploy/'s Deployment and the real pilot-agent, as in a cluster", () => {
  const cli = useCli();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  /** A pod's directory, its cluster (a key that signs tokens, an API server reviewing them). */
  async function cluster() {
    const root = mkdtempSync(join(tmpdir(), 'mock-istiod-pod-'));
    cleanups.push(() => Promise.resolve(rmSync(root, { recursive: true, force: true })));
    const keys = join(root, 'cluster');
    expect((await cli.run(['certs', '--tls-dir', keys])).code).toBe(0);
    const api = await startApiServer(
      signedBy(createPrivateKey(readFileSync(join(keys, 'jwt-key.pem')))),
    );
    cleanups.push(() => api.close());
    return { root, keys, api };
  }

  async function mintedBy(dir: string): Promise<string> {
    const minted = await cli.run(['token', '--tls-dir', dir, '--ns', 'default', '--sa', 'default']);
    expect(minted.code, minted.stderr).toBe(0);
    return minted.stdout.trim();
  }

  it("a cluster-signed token, reviewed by the cluster: config after the timeline's 10 s hold, LIVE, CSR signed", async () => {
    const istio = requireIstio();
    const { root, keys, api } = await cluster();
    const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const ports = await freeLabPorts(upstream.port);

    const resources = { 'resources.yaml': stringify({ resources: makeLabResources(ports) }) };
    const pod = await layOutPod(root, cli, {
      token: 'control-token',
      resources,
      tokenReview: api.kubeconfig,
    });
    const mock = cli.start([...pod.args, ...JSON_LOGS], { podEnv: pod.env });
    const serving = await waitForServing(mock);
    const token = await mintedBy(keys);

    const agent = await startPilotAgent({
      podEnv: { ...POD_ENV, ISTIOD_SAN: SERVICE_HOST },
      discoveryAddress: serving.xds,
      rootCert: pod.secret['root-cert.pem']!,
      token,
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
    expect(api.reviewed).toContain(token);
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');
    await agent.envoy.waitForLive({ timeoutMs: 30_000 });
    expect(logLines(mock).map((l) => l.msg)).toContain('step 2: released, Envoy goes LIVE');

    const response = await fetch(`http://127.0.0.1:${ports.inboundPort}/orders`);
    expect([response.status, await response.text()]).toEqual([200, `ok:${ports.appPort} /orders`]);
    await waitFor(() => agent.envoy.logs().includes(CSR_SIGNED), {
      timeoutMs: 30_000,
      description: "pilot-agent's line for its signed CSR",
    });
  });

  it("a token the cluster did not sign: istiod's authentication failure, nothing served", async () => {
    const istio = requireIstio();
    const { root, api } = await cluster();
    const pod = await layOutPod(root, cli, { token: 'control-token', tokenReview: api.kubeconfig });
    const mock = cli.start([...pod.args, ...JSON_LOGS], { podEnv: pod.env });
    const serving = await waitForServing(mock);
    // Signed by the mock's own key, which the cluster does not know.
    const forged = await mintedBy(join(root, 'certs'));
    const agent = await startPilotAgent({
      podEnv: { ...POD_ENV, ISTIOD_SAN: SERVICE_HOST },
      discoveryAddress: serving.xds,
      rootCert: pod.secret['root-cert.pem']!,
      token: forged,
      istio,
      ports: { admin: 0, status: 0, readiness: 0, prometheus: 0 },
      probeIntervalMs: 200,
    });
    cleanups.push(() => agent.stop());
    await waitFor(() => agent.envoy.logs().includes(XDS_REFUSED), {
      timeoutMs: 30_000,
      description: "pilot-agent's line for its refused xDS stream",
    });
    expect(api.reviewed).toContain(forged);
    expect(logLines(mock).some((l) => l.msg.startsWith('Failed to authenticate client from'))).toBe(
      true,
    );
    const control = `http://127.0.0.1:${serving.control!.port}/control/state`;
    const state = await fetch(control, { headers: { authorization: 'Bearer control-token' } });
    expect(((await state.json()) as { streams: unknown[] }).streams).toEqual([]);
    expect(await agent.envoy.serverInfoState()).toBe('PRE_INITIALIZING');
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
