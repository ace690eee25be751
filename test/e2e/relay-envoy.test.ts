/**
 * The relay is invisible to a real sidecar, and its faults act on istiod's configuration as
 * the same Envoy sees them. Upstream: istiod's own xDS server (istiod-ref), run without the
 * filters of Istio's own Envoy build (metadata exchange, ALPN), so that this Envoy accepts
 * istiod's configuration as istiod wrote it and nothing is rewritten on the way. Downstream:
 * the real pilot-agent and Envoy. The same pod runs once against istiod-ref directly and once
 * through the relay, and their config_dumps agree.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaySets } from '../../src/app/replay.js';
import { readInput, toYaml } from '../../src/generate/kube-input.js';
import { startReference, type ReferenceServer } from '../../src/generate/reference-server.js';
import { targetOf } from '../../src/target/operation-target.js';
import { parseTimeline } from '../../src/timelines/timeline.js';
import { runTimeline } from '../../src/timelines/timeline-runner.js';
import { packageRoot } from '../../src/util/package-root.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import {
  POD_KUBE_YAML,
  POD_NODE_ID,
  useRealLab,
  type RealLab,
} from '../support/harness/real-agent.js';
import { makeCacerts } from '../support/fixtures/cacerts.js';

/** istiod without the extensions this Envoy lacks: its configuration needs no rewriting. */
const UPSTREAM_ENVOY = {
  PILOT_ENABLE_METADATA_EXCHANGE: 'false',
  PILOT_ENABLE_ALPN_FILTER: 'false',
};

interface PodUnderTest {
  kube: string;
  podEnv: Record<string, string>;
  nodeId: string;
}

const LAB_POD: PodUnderTest = { kube: POD_KUBE_YAML, podEnv: {}, nodeId: POD_NODE_ID };

/** The first pod of `generate`'s example, as `generate` hands it to istiod. */
function examplePod(): PodUnderTest {
  const read = readInput([join(packageRoot(), 'examples/generate/orders.yaml')]);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  const pod = read.value.pods[0];
  if (!pod) throw new Error('examples/generate/orders.yaml has no pod');
  const serviceAccount = read.value.kube.flatMap((doc) => {
    const spec = (doc as { kind?: string; spec?: { serviceAccountName?: string } }).spec;
    return doc['kind'] === 'Pod' && spec?.serviceAccountName ? [spec.serviceAccountName] : [];
  })[0];
  return {
    kube: toYaml(read.value.kube),
    podEnv: {
      POD_NAME: pod.name,
      POD_NAMESPACE: pod.namespace,
      INSTANCE_IP: pod.ip,
      SERVICE_ACCOUNT: serviceAccount ?? 'default',
      ISTIO_META_WORKLOAD_NAME: 'orders',
    },
    nodeId: `sidecar~${pod.ip}~${pod.name}.${pod.namespace}~${pod.namespace}.svc.cluster.local`,
  };
}

const labs = useRealLab();
let dir: string;
const istiods: ReferenceServer[] = [];

async function istiodFor(pod: PodUnderTest, xds?: string): Promise<ReferenceServer> {
  const kubeFile = join(dir, `kube-${istiods.length}.yaml`);
  writeFileSync(kubeFile, pod.kube);
  const istiod = await startReference({
    kubeFile,
    istiodEnv: UPSTREAM_ENVOY,
    ...(xds && { xds }),
  });
  istiods.push(istiod);
  return istiod;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-relay-envoy-'));
});
afterAll(async () => {
  for (const istiod of istiods.splice(0)) await istiod.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The dynamic configuration in Envoy's config_dump (EDS included), in name order, untimed. */
async function dynamicConfig(lab: RealLab): Promise<Record<string, unknown[]>> {
  const url = `http://127.0.0.1:${lab.agent.ports.admin}/config_dump?include_eds`;
  const dump = (await (await fetch(url)).json()) as { configs: Record<string, unknown>[] };
  const out: Record<string, unknown[]> = {};
  for (const config of dump.configs) {
    for (const key of [
      'dynamic_active_clusters',
      'dynamic_warming_clusters',
      'dynamic_listeners',
      'dynamic_route_configs',
      'dynamic_endpoint_configs',
    ]) {
      const entries = config[key];
      if (Array.isArray(entries)) out[key] = entries.map(untimed).sort(byName);
    }
  }
  return out;
}

function untimed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untimed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'last_updated')
      .map(([key, inner]) => [key, untimed(inner)]),
  );
}

const nameOf = (entry: unknown) => {
  const text = JSON.stringify(entry);
  return /"(?:name|cluster_name)":"([^"]*)"/.exec(text)?.[1] ?? text;
};
const byName = (a: unknown, b: unknown) => (nameOf(a) < nameOf(b) ? -1 : 1);

/** The pod's Envoy, through the relay or straight to istiod, LIVE on istiod's configuration. */
async function podOn(
  istiod: ReferenceServer,
  pod: PodUnderTest,
  xdsMode: 'sotw' | 'delta',
  how: 'direct' | 'relay',
): Promise<RealLab> {
  const lab = await labs.start({
    podEnv: pod.podEnv,
    agent: { xdsMode },
    ...(how === 'direct' ? { direct: istiod.xds } : { mock: { relay: istiod.xds } }),
  });
  await lab.agent.envoy.waitForLive({ timeoutMs: 60_000 });
  return lab;
}

describe.each(['sotw', 'delta'] as const)('over %s', (xdsMode) => {
  it.each([
    ['the lab pod', () => LAB_POD],
    ["generate's example pod", examplePod],
  ])("%s: Envoy's config_dump through the relay equals istiod's directly", async (_, make) => {
    const pod = make();
    const istiod = await istiodFor(pod);
    const [direct, relayed] = await Promise.all([
      podOn(istiod, pod, xdsMode, 'direct'),
      podOn(istiod, pod, xdsMode, 'relay'),
    ]);
    await relayed.istiod.waitForAck(LISTENER_TYPE, { node: pod.nodeId, timeoutMs: 30_000 });
    let last: [Record<string, unknown[]>, Record<string, unknown[]>] = [{}, {}];
    await waitFor(
      async () => {
        last = await Promise.all([dynamicConfig(direct), dynamicConfig(relayed)]);
        return isDeepStrictEqual(...last);
      },
      { description: 'the two Envoys to hold the same configuration', timeoutMs: 30_000 },
    ).catch(() => undefined);
    const [viaIstiod, viaRelay] = last;
    expect(viaIstiod['dynamic_active_clusters']?.length).toBeGreaterThan(3);
    expect(viaIstiod['dynamic_listeners']?.length).toBeGreaterThan(1);
    expect(viaRelay, 'through the relay (expected: straight to istiod)').toEqual(viaIstiod);
  });

  it("istiod's push reaches Envoy through the relay, at istiod's new version", async () => {
    const istiod = await istiodFor(LAB_POD);
    const lab = await podOn(istiod, LAB_POD, xdsMode, 'relay');
    await lab.istiod.waitForAck(CLUSTER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
    const before = await cdsSeen(lab);
    await istiod.push();
    await waitFor(
      async () => {
        const now = await cdsSeen(lab);
        return (
          now.updates > before.updates && now.acked !== before.acked && now.acked === sent(lab)
        );
      },
      { description: "Envoy to take istiod's push", timeoutMs: 30_000 },
    );
  });
});

/**
 * What Envoy says of its clusters: the CDS updates it accepted (its own counter) and the
 * version it last ACKed (its ACK, as the relay received it). A push of the same clusters at a
 * new version is accepted and ACKed; the config_dump keeps the version that changed them.
 */
async function cdsSeen(
  lab: RealLab,
): Promise<{ updates: number; acked: string | undefined; ackedNonce: string | undefined }> {
  const updates = await lab.agent.envoy.stat('cluster_manager.cds.update_success');
  const acked = lab.istiod.streams()[0]?.types.get(CLUSTER_TYPE)?.acked;
  return {
    updates: typeof updates === 'number' ? updates : 0,
    acked: acked?.version,
    ackedNonce: acked?.nonce,
  };
}

/** The version of CDS istiod last sent the relay for this pod. */
function sent(lab: RealLab): string | undefined {
  return lab.istiod.streams()[0]?.upstream?.received.get(CLUSTER_TYPE);
}

describe('faults on relayed traffic, seen by the real Envoy', () => {
  it("down: connected_state 0 on istiod's configuration, then 1 again after up", async () => {
    const istiod = await istiodFor(LAB_POD);
    const lab = await podOn(istiod, LAB_POD, 'sotw', 'relay');
    const { envoy } = lab.agent;
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 1);
    await lab.istiod.control.down();
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0, {
      timeoutMs: 30_000,
    });
    expect(JSON.stringify(await envoy.configDump())).toContain('virtualInbound');
    await lab.istiod.control.up();
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 1, {
      timeoutMs: 30_000,
    });
    await lab.istiod.waitForAck(CLUSTER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
  });

  it("a timeline runs: istiod's push held at its first step, delivered at its second", async () => {
    const istiod = await istiodFor(LAB_POD);
    const lab = await podOn(istiod, LAB_POD, 'sotw', 'relay');
    await lab.istiod.waitForAck(CLUSTER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
    const before = await cdsSeen(lab);
    const timeline = parseTimeline(`
name: hold-a-push
start: serve
steps:
  - at: 0s
    fault: withhold
    id: hold
  - at: 3s
    remove: hold
`);
    if (!timeline.ok) throw new Error(JSON.stringify(timeline.problems));
    const run = runTimeline(targetOf(lab.istiod), timeline.value);
    try {
      await waitFor(async () => (await lab.istiod.control.listFaults()).faults.length === 1, {
        description: 'the first step to hold responses',
      });
      await istiod.push();
      await waitFor(() => sent(lab) !== before.acked, {
        description: "istiod's push to reach the relay",
        timeoutMs: 30_000,
      });
      const pushed = sent(lab);
      expect(await cdsSeen(lab)).toEqual(before);
      await run.done;
      await waitFor(
        async () => {
          const now = await cdsSeen(lab);
          return now.updates > before.updates && now.acked === pushed;
        },
        {
          description: "Envoy to take istiod's push once the timeline released it",
          timeoutMs: 30_000,
        },
      );
    } finally {
      run.stop();
    }
  });
});

describe('istiod itself gone, as Envoy sees it', () => {
  it('pass (the default): the outage reaches Envoy, connected_state 0, its configuration kept', async () => {
    const istiod = await istiodFor(LAB_POD);
    const lab = await podOn(istiod, LAB_POD, 'sotw', 'relay');
    const { envoy } = lab.agent;
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 1);
    await istiod.close();
    await envoy.waitForStat('control_plane.connected_state', (v) => v === 0, {
      timeoutMs: 30_000,
    });
    expect(JSON.stringify(await envoy.configDump())).toContain('virtualInbound');
  });

  it('hold: Envoy stays connected on what it has; istiod back on its port, Envoy takes its configuration', async () => {
    const istiod = await istiodFor(LAB_POD);
    const lab = await labs.start({ mock: { relay: istiod.xds, relayOutage: 'hold' } });
    const { envoy } = lab.agent;
    await envoy.waitForLive({ timeoutMs: 60_000 });
    await lab.istiod.waitForAck(CLUSTER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
    const before = await cdsSeen(lab);
    await istiod.close();
    await waitFor(() => lab.istiod.streams()[0]?.upstream?.connected === false, {
      description: 'the relay to lose istiod',
      timeoutMs: 30_000,
    });
    // The proxy's stream is the relay's: Envoy is still connected.
    expect(await envoy.stat('control_plane.connected_state')).toBe(1);
    expect(lab.istiod.journal.query({ kind: 'upstream-lost' }).length).toBe(1);
    const back = await istiodFor(LAB_POD, istiod.xds);
    await waitFor(() => lab.istiod.streams()[0]?.upstream?.connected === true, {
      description: 'the relay to reach istiod again',
      timeoutMs: 30_000,
    });
    // A response of the returned istiod's, ACKed: told by its nonce, not its version. istiod's
    // version is the second it was made and a count of its own pushes, so an istiod started in
    // the same second as the first sends the very version the first one did (seen under load:
    // both `…T11:19:33Z/3`); each nonce carries a UUID of its own.
    let now = before;
    await waitFor(
      async () => {
        now = await cdsSeen(lab);
        return (
          now.updates > before.updates &&
          now.ackedNonce !== before.ackedNonce &&
          now.acked === sent(lab)
        );
      },
      {
        description: "Envoy to take the returned istiod's clusters",
        timeoutMs: 30_000,
        // Which part did not hold: Envoy's count, the ACKed nonce, or what istiod sent.
        explain: () =>
          `before ${JSON.stringify(before)}, now ${JSON.stringify(now)}, istiod sent ${sent(lab)}; ` +
          `CDS in the journal: ${JSON.stringify(
            lab.istiod.journal
              .query({ typeUrl: CLUSTER_TYPE })
              .slice(-8)
              .map(({ kind, direction, version, nonce }) => ({ kind, direction, version, nonce })),
          )}`,
      },
    );
    expect(back.xds).toBe(istiod.xds);
    expect(await envoy.stat('control_plane.connected_state')).toBe(1);
  });
});

describe("the mesh's CA (cacerts): a sidecar that trusts only the mesh's root", () => {
  it('connects to the relay, goes LIVE, and holds a workload chain through the intermediate', async () => {
    const cacerts = join(dir, 'cacerts');
    const { caCertPem, rootCertPem } = makeCacerts(cacerts);
    const istiod = await istiodFor(LAB_POD);
    const lab = await labs.start({
      mock: { relay: istiod.xds, tls: { cacerts } },
      outputCerts: true,
    });
    expect(lab.istiod.security.rootCert.trim()).toBe(rootCertPem.trim());
    await lab.agent.envoy.waitForLive({ timeoutMs: 60_000 });
    // The pod's certificate as pilot-agent got it (OUTPUT_CERTS): leaf, intermediate, root.
    const file = join(lab.certDir ?? '', 'cert-chain.pem');
    const pems = await waitFor(
      () => {
        const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
        return (
          text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? undefined
        );
      },
      { description: "pilot-agent's cert-chain.pem", timeoutMs: 30_000 },
    );
    const [leaf, intermediate] = pems.map((pem) => new X509Certificate(pem));
    expect(intermediate?.fingerprint256).toBe(new X509Certificate(caCertPem).fingerprint256);
    expect(intermediate && leaf?.verify(intermediate.publicKey)).toBe(true);
    expect(leaf?.subjectAltName).toBe('URI:spiffe://cluster.local/ns/default/sa/default');
  });
});

describe('record, then replay', () => {
  it("the replayed Envoy reaches the recorded one's config_dump, with no istiod", async () => {
    const file = join(dir, 'recording.jsonl');
    const istiod = await istiodFor(LAB_POD);
    const recorded = await labs.start({ mock: { relay: istiod.xds, relayRecord: file } });
    await recorded.agent.envoy.waitForLive({ timeoutMs: 60_000 });
    await recorded.istiod.waitForAck(LISTENER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
    const want = await dynamicConfig(recorded);
    await recorded.close();
    await istiod.close();
    const replayed = await labs.start({ mock: { resources: replaySets(file) } });
    await replayed.agent.envoy.waitForLive({ timeoutMs: 60_000 });
    let got: Record<string, unknown[]> = {};
    await waitFor(
      async () => {
        got = await dynamicConfig(replayed);
        return isDeepStrictEqual(got, want);
      },
      { description: 'the replayed Envoy to hold the recorded configuration', timeoutMs: 30_000 },
    ).catch(() => undefined);
    expect(want['dynamic_listeners']?.length).toBeGreaterThan(1);
    expect(got, 'replayed (expected: recorded)').toEqual(want);
  });
});
