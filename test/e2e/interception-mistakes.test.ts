/**
 * The sidecar lab's three mistakes (shared/seeds, chapter 003), each from a real run: the
 * capture rules written by the real `pilot-agent istio-iptables` with istio-init's own
 * arguments from the real `istioctl kube-inject` output, inside network namespaces this test
 * makes and deletes (never the host's interfaces), and a real Envoy in the pod's namespace
 * fed by the mock over ADS (harness/interception-lab.ts). docs/interception.md shows what
 * these runs print.
 */
import { afterEach, beforeAll, describe, expect } from 'vitest';
import { kubeInject } from '../../src/inject/kube-inject.js';
import { findPod } from '../../src/inject/injection-values.js';
import { LAB_DEPLOYMENT_YAML } from '../../src/inject/lab-deployment.js';
import { waitFor } from '../../src/util/wait.js';
import { test } from '../support/fixtures/test.js';
import {
  APP_PORT,
  EXT_PORT,
  interceptionResources,
  startInterceptionPod,
  type InterceptionPod,
  type OutboundPolicy,
} from '../support/harness/interception-lab.js';
import { EXT_IP, POD_IP } from '../support/harness/netns.js';

/** istio-init's arguments, as injected (without `istio-iptables` and the log level). */
let injectedArgs: string[] = [];
beforeAll(async () => {
  const result = await kubeInject({ input: LAB_DEPLOYMENT_YAML });
  if (!result.ok) throw new Error(`${result.message}: ${result.stderr}`);
  const init = (
    findPod(result.yaml)?.spec['initContainers'] as { name: string; args: string[] }[]
  ).find((c) => c.name === 'istio-init');
  injectedArgs = (init?.args ?? []).filter((a) => a !== 'istio-iptables' && !a.startsWith('--log'));
});

const pods: InterceptionPod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.close();
});

/** The injected flags with one flag and its value taken out. */
function without(flag: string): string[] {
  const i = injectedArgs.indexOf(flag);
  return i < 0 ? injectedArgs : [...injectedArgs.slice(0, i), ...injectedArgs.slice(i + 2)];
}

async function pod(
  startMock: (o: {
    resources: unknown[];
  }) => Promise<Parameters<typeof startInterceptionPod>[0]['mock']>,
  policy: OutboundPolicy,
  iptables: string[],
  envoyUid: number,
): Promise<InterceptionPod> {
  const mock = await startMock({ resources: interceptionResources(policy) });
  const started = await startInterceptionPod({ mock, iptables, envoyUid });
  pods.push(started);
  return started;
}

const EXTERNAL = `http://${EXT_IP}:${EXT_PORT}/catalog`;
const PROBE = `http://${POD_IP}:15021/healthz/ready`;

describe('interception in a real pod network', () => {
  test('as injected: outbound through virtualOutbound, the probe answered by Envoy itself', async ({
    startMock,
  }) => {
    expect(injectedArgs).toEqual(expect.arrayContaining(['-u', '1337', '-d', '15090,15021,15020']));
    const p = await pod(startMock, 'ALLOW_ANY', injectedArgs, 1337);
    expect(p.natRules).toContain('-A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN');

    const out = await p.net.curl(p.net.pod, EXTERNAL);
    expect(out).toEqual({ status: 200, body: `external:${EXT_PORT} /catalog` });
    const inbound = await p.net.curl(p.net.ext, `http://${POD_IP}:${APP_PORT}/orders`);
    expect(inbound).toEqual({ status: 200, body: `ok:${APP_PORT} /orders` });
    const probe = await p.net.curl(p.net.ext, PROBE);
    expect(probe).toEqual({ status: 200, body: 'envoy readiness: LIVE' });

    const stats = await p.stats(
      '^http\\.(virtual|readiness)|PassthroughCluster\\.upstream_rq_total',
    );
    expect(stats).toMatchObject({
      'http.virtualOutbound.downstream_rq_total': 1,
      'http.virtualInbound.downstream_rq_total': 1,
      'http.readiness.downstream_rq_total': 1,
      'cluster.PassthroughCluster.upstream_rq_total': 1,
    });
  });

  test('mistake 1, the UID not excluded: Envoy as root loops back into itself', async ({
    startMock,
  }) => {
    const p = await pod(startMock, 'ALLOW_ANY', injectedArgs, 0);
    const call = p.net.curl(p.net.pod, EXTERNAL, 3);
    // One request becomes a thousand: each hop out of Envoy is captured back into 15001,
    // until PassthroughCluster's circuit breaker (1024 connections) trips and the chain waits.
    const filter =
      '^http\\.virtualOutbound\\.downstream_rq_(total|active)|PassthroughCluster\\.upstream_cx_(overflow|active)';
    const stats = await waitFor(
      async () => {
        const now = await p.stats(filter);
        return (now['cluster.PassthroughCluster.upstream_cx_overflow'] ?? 0) > 0 && now;
      },
      { timeoutMs: 20_000, description: 'PassthroughCluster to overflow' },
    );
    expect(stats['http.virtualOutbound.downstream_rq_total']).toBeGreaterThan(1000);
    expect(stats['cluster.PassthroughCluster.upstream_cx_active']).toBeGreaterThan(1000);
    // The app's call never gets an answer (curl gives up after 3 s: no status).
    expect((await call).status).toBe(0);
    // Envoy logs the app's own request when curl hangs up: DC, and no response code.
    const first =
      /^DownstreamEnd listener=virtualOutbound 192\.0\.2\.2:8080\/catalog 0 DC PassthroughCluster 192\.0\.2\.2:8080$/m;
    await waitFor(() => first.test(p.envoy.stdout()), {
      description: 'the access log line of the looping request',
      explain: () => p.envoy.stdout().slice(0, 1000),
    });
  });

  test('mistake 2, no -d: the kubelet probe on 15021 is captured and routed to the app', async ({
    startMock,
  }) => {
    const args = without('-d');
    const p = await pod(startMock, 'ALLOW_ANY', args, 1337);
    expect(p.natRules).not.toContain('--dport 15021 -j RETURN');
    const probe = await p.net.curl(p.net.ext, PROBE);
    expect(probe).toEqual({ status: 200, body: `ok:${APP_PORT} /healthz/ready` });
    const stats = await p.stats('^http\\.(virtual|readiness)');
    expect(stats['http.virtualInbound.downstream_rq_total']).toBe(1);
    expect(stats['http.readiness.downstream_rq_total'] ?? 0).toBe(0);
    await waitFor(() => p.envoy.stdout().includes('/healthz/ready 200'), {
      description: 'the access log line',
    });
  });

  test('mistake 3, REGISTRY_ONLY: the external call gets 503 from BlackHoleCluster', async ({
    startMock,
  }) => {
    const p = await pod(startMock, 'REGISTRY_ONLY', injectedArgs, 1337);
    const out = await p.net.curl(p.net.pod, EXTERNAL);
    expect(out).toEqual({ status: 503, body: 'no healthy upstream' });
    const stats = await p.stats(
      'BlackHoleCluster\\.upstream_cx_none_healthy|^http\\.virtualOutbound\\.downstream_rq_5xx',
    );
    expect(stats).toMatchObject({
      'cluster.BlackHoleCluster.upstream_cx_none_healthy': 1,
      'http.virtualOutbound.downstream_rq_5xx': 1,
    });
    await waitFor(() => / 503 UH BlackHoleCluster /.test(p.envoy.stdout()), {
      description: 'the access log line with UH and BlackHoleCluster',
    });
  });
});
