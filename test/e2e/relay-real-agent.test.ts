/**
 * The relay with real parts on both sides: istiod's own xDS server (istiod-ref) upstream,
 * serving a pod from Kubernetes YAML, and the real pilot-agent and Envoy downstream, pointed
 * at the mock (TLS, its CA signing the pod's certificate). Envoy runs istiod's configuration,
 * passed through the relay; the mock's faults act on it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../../src/generate/reference-server.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { waitFor } from '../../src/util/wait.js';
import { POD_KUBE_YAML, POD_NODE_ID, useRealLab } from '../support/harness/real-agent.js';

const labs = useRealLab();
let dir: string;
let istiod: ReferenceServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-relay-'));
  writeFileSync(join(dir, 'kube.yaml'), POD_KUBE_YAML);
  istiod = await startReference({ kubeFile: join(dir, 'kube.yaml') });
}, 60_000);
afterAll(async () => {
  await istiod?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the relay between istiod-ref and the real pilot-agent', () => {
  it.each(['sotw', 'delta'] as const)(
    "over %s, Envoy goes LIVE on istiod's configuration, passed through the relay",
    async (xdsMode) => {
      const lab = await labs.start({
        mock: { relay: istiod.xds, relayDropUnknownExtensions: true },
        agent: { xdsMode },
      });
      await lab.agent.envoy.waitForLive({ timeoutMs: 60_000 });
      await lab.istiod.waitForAck(LISTENER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
      const dump = JSON.stringify(await lab.agent.envoy.configDump());
      // istiod's own listeners, not the mock's lab.
      expect(dump).toContain('virtualInbound');
      expect(dump).toContain('outbound|8101||orders.default.svc.cluster.local');
      // istiod's versions reach Envoy as istiod wrote them: a push version.
      const [stream] = lab.istiod.streams();
      expect(stream?.protocol).toBe(xdsMode);
      expect(stream?.types.get(CLUSTER_TYPE)?.acked?.version).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\/\d+$/,
      );
    },
  );

  it.each(['sotw', 'delta'] as const)(
    "over %s, withheld: the pod stays at 1/2; released: 2/2 on istiod's configuration",
    async (xdsMode) => {
      const lab = await labs.start({
        mock: { relay: istiod.xds, relayDropUnknownExtensions: true, withholdFirst: true },
        agent: { xdsMode },
      });
      await lab.istiod.waitForRequest('CDS', { node: POD_NODE_ID, timeoutMs: 30_000 });
      await lab.istiod.expectNoResponse('CDS', 1_000, { node: POD_NODE_ID });
      expect(lab.agent.podView().ready).toBe(1);
      await lab.istiod.control.release();
      await lab.agent.waitForPod((view) => view.ready === 2);
      expect(JSON.stringify(await lab.agent.envoy.configDump())).toContain('virtualInbound');
    },
  );

  it.each(['sotw', 'delta'] as const)(
    "over %s, a NACK-provoking replacement is NACKed, istiod's configuration stays, and istiod sees no NACK",
    async (xdsMode) => {
      const lab = await labs.start({
        mock: { relay: istiod.xds, relayDropUnknownExtensions: true },
        agent: { xdsMode },
      });
      await lab.agent.envoy.waitForLive({ timeoutMs: 60_000 });
      await lab.istiod.waitForAck(LISTENER_TYPE, { node: POD_NODE_ID, timeoutMs: 30_000 });
      const fault = await lab.istiod.control.inject({
        scenario: 'nack',
        params: { config: 'unknown-cluster' },
      });
      await istiod.push();
      // istiod's push may go out bad before the first NACK is in: then both are NACKed.
      await waitFor(async () => ((await fault.info()).counts.rejected ?? 0) >= 1, {
        description: 'Envoy to NACK the replacement',
        timeoutMs: 30_000,
      });
      const nack = lab.istiod.streams()[0]?.types.get(LISTENER_TYPE)?.nack;
      expect(nack?.message).toContain("unknown cluster 'no-such-cluster'");
      // istiod's listeners are what Envoy still runs.
      expect(JSON.stringify(await lab.agent.envoy.configDump())).toContain('virtualInbound');
      const syncz = (await (await fetch(`${istiod.debugUrl}/debug/syncz`)).json()) as unknown[];
      expect(JSON.stringify(syncz)).not.toContain('no-such-cluster');
    },
  );
});
