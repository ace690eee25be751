/**
 * The real istioctl reading what the real pilot-agent's Envoy got from the mock.
 * `istioctl proxy-config … -f <config_dump.json>` reads a dump file offline, with no
 * cluster: the lab's listeners are Istio-shaped (virtualInbound forwarding to
 * `inbound|<port>||`, virtualOutbound to BlackHoleCluster), and istioctl shows them so.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIstioctl, useRealLab } from '../support/harness/real-agent.js';

const labs = useRealLab();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Envoy's config_dump, written to a file as `curl localhost:15000/config_dump > dump.json`. */
function writeDump(dump: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-istioctl-'));
  dirs.push(dir);
  const path = join(dir, 'config_dump.json');
  writeFileSync(path, JSON.stringify(dump));
  return path;
}

describe('istioctl proxy-config -f <config_dump of the real sidecar>', () => {
  it('lists virtualInbound and virtualOutbound as Istio would show them', async () => {
    const lab = await labs.start();
    await lab.agent.envoy.waitForLive({ timeoutMs: 30_000 });
    const dump = writeDump(await lab.agent.envoy.configDump());
    const { inboundPort, outboundPort, appPort } = lab.ports;

    const table = await runIstioctl(['proxy-config', 'listeners', '-f', dump]);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ADDRESSES\s+PORT\s+MATCH\s+DESTINATION$/);
    expect(rows).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^127\\.0\\.0\\.1\\s+${inboundPort}\\s+ALL\\s+Cluster: inbound\\|${appPort}\\|\\|$`,
        ),
      ),
    );
    expect(rows).toContainEqual(
      expect.stringMatching(
        new RegExp(`^127\\.0\\.0\\.1\\s+${outboundPort}\\s+ALL\\s+BlackHoleCluster$`),
      ),
    );

    const json = await runIstioctl(['proxy-config', 'listeners', '-f', dump, '-o', 'json']);
    expect(json.code).toBe(0);
    const listeners = JSON.parse(json.stdout) as { name?: string }[];
    const names = listeners.map((l) => l.name).filter((n) => n?.startsWith('virtual'));
    expect(names.sort()).toEqual(['virtualInbound', 'virtualOutbound']);

    const clusters = await runIstioctl(['proxy-config', 'clusters', '-f', dump]);
    expect(clusters.code).toBe(0);
    expect(clusters.stdout).toMatch(new RegExp(`^\\s+${appPort}\\s+-\\s+inbound\\s+STATIC`, 'm'));
    expect(clusters.stdout).toMatch(/^BlackHoleCluster\s+-\s+-\s+-\s+STATIC/m);
  });
});
