/**
 * istiod's own configuration for the lab pod, through the mock, in a real Envoy: `generate`
 * asks the real reference server (istiod-ref) what it sends the pod's sidecar, the mock
 * serves that file, a real Envoy ACKs it; `explain` then names what each injection value
 * became, for the lab's hand-built set and istiod's, and how they differ.
 * outboundTrafficPolicy flips istiod's catch-all between PassthroughCluster and
 * BlackHoleCluster in the Envoy's own config_dump.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { readDumpFacts } from '../../src/explain/dump-facts.js';
import { explainDump } from '../../src/explain/explain.js';
import { SEED_INJECTION_VALUES } from '../../src/explain/injection-values.js';
import { generateForPod } from '../../src/generate/generate.js';
import { sidecarBootstrap, type TestEnvoy } from '../../src/testing/envoy.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { makeSidecarBootstrap } from '../../src/bootstrap/sidecar.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();
const ORDERS = 'examples/generate/orders.yaml';
const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-generate-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where unmatched outbound connections go in this Envoy's own config_dump. */
async function catchAll(envoy: TestEnvoy): Promise<string | undefined> {
  const facts = readDumpFacts(await envoy.configDump());
  return explainDump('here', facts, SEED_INJECTION_VALUES).unknownDestination;
}

describe('generate: what istiod sends the lab pod, served to a real Envoy', () => {
  it('Envoy ACKs istiod’s set: virtualOutbound on 15001, outbound|8101||orders…; explain names each object against the lab’s', async ({
    startMock,
    startEnvoy,
  }) => {
    // The lab's own set first (virtualInbound 15006, virtualOutbound 10081), for comparison.
    const lab = await startMock();
    const labEnvoy = await startEnvoy({ bootstrap: sidecarBootstrap(lab) });
    await labEnvoy.waitForLive({ timeoutMs: 20_000 });
    const labDump = join(dir, 'lab.json');
    writeFileSync(labDump, JSON.stringify(await labEnvoy.configDump()));
    await labEnvoy.stop();

    const file = join(dir, 'istiod.yaml');
    const generated = await cli.run(
      ['generate', ORDERS, '--loopback-listeners', '--sds', 'plaintext', '-o', file],
      { timeoutMs: 60_000 },
    );
    expect(generated.stderr).toContain(
      'asked istiod for pod default/orders-0 (10.1.0.7) as sidecar~10.1.0.7~orders-0.default~default.svc.cluster.local',
    );
    expect(generated.stderr).toContain('istiod sent: CDS 5, EDS 1, LDS 3, RDS 1');
    expect(generated.code).toBe(0);

    const istiod = await startMock({ resourcesPath: file });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(istiod) });
    await istiod.waitForAck(CLUSTER_TYPE);
    await istiod.waitForAck(LISTENER_TYPE);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const listeners = await envoy.dynamicListeners();
    expect(listeners.map((l) => `${l.name} ${l.direction} ${l.port}`).sort()).toEqual([
      '0.0.0.0_8101 OUTBOUND 8101',
      'virtualInbound INBOUND 15006',
      'virtualOutbound OUTBOUND 15001',
    ]);
    expect((await envoy.dynamicActiveClusters()).sort()).toEqual([
      'BlackHoleCluster',
      'InboundPassthroughCluster',
      'PassthroughCluster',
      'inbound|8101||',
      'outbound|8101||orders.default.svc.cluster.local',
    ]);
    expect(await catchAll(envoy)).toBe('PassthroughCluster');
    const istiodDump = join(dir, 'istiod.json');
    writeFileSync(istiodDump, JSON.stringify(await envoy.configDump()));

    const explained = await cli.run([
      'explain',
      '-f',
      `lab=${labDump}`,
      '-f',
      `istiod=${istiodDump}`,
    ]);
    expect(explained.code).toBe(0);
    const out = explained.stdout;
    expect(out).toMatch(
      /istio-init -p 15001 +outbound capture: listener virtualOutbound OUTBOUND 127\.0\.0\.1:10081/,
    );
    expect(out).toContain("NOT on 15001: iptables' 15001 reaches nothing here");
    expect(out).toContain('listener virtualOutbound OUTBOUND 127.0.0.1:15001, use_original_dst');
    expect(out).toContain('listener virtualInbound INBOUND 127.0.0.1:15006');
    expect(out).toContain("virtualOutbound's catch-all sends to PassthroughCluster (ORIGINAL_DST)");
    expect(out).toContain("virtualOutbound's catch-all sends to BlackHoleCluster (STATIC)");
    expect(out).toContain(
      'outbound: lab virtualOutbound on 10081, istiod virtualOutbound on 15001',
    );
    expect(out).toContain(
      'unknown destinations: lab → BlackHoleCluster, istiod → PassthroughCluster',
    );
    expect(out).toContain('istio-init -u 1337');

    const json = await cli.run(['explain', '-f', `istiod=${istiodDump}`, '--json']);
    const parsed = JSON.parse(json.stdout) as {
      configurations: {
        label: string;
        unknownDestination: string;
        rows: { value: string; objects: string[] }[];
      }[];
    };
    const [only] = parsed.configurations;
    expect(only?.unknownDestination).toBe('PassthroughCluster');
    expect(only?.rows.find((r) => r.value === 'istio-init -p 15001')?.objects).toEqual([
      'virtualOutbound',
      'PassthroughCluster',
      'BlackHoleCluster',
    ]);
  });

  it('withheld then released, REGISTRY_ONLY turns istiod’s catch-all into BlackHoleCluster in Envoy; ALLOW_ANY back into PassthroughCluster', async ({
    startMock,
    startEnvoy,
  }) => {
    const ask = (policy: 'ALLOW_ANY' | 'REGISTRY_ONLY') =>
      generateForPod({
        files: [ORDERS],
        outboundTrafficPolicy: policy,
        rewrites: {
          sds: { mode: 'plaintext' },
          listeners: { loopback: true, portOffset: 0, ports: new Map(), bindVirtual: false },
        },
      });
    const registryOnly = await ask('REGISTRY_ONLY');
    // Under a fault first: withheld, Envoy waits with no configuration; released, it gets istiod's.
    const mock = await startMock({ resources: [registryOnly.imported.spec], withholdFirst: true });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(mock) });
    await waitFor(() => mock.streams().length === 1, { description: 'the mock to see the stream' });
    expect(await envoy.ready()).toEqual({ status: 503, body: 'PRE_INITIALIZING' });
    expect(await envoy.stat('cluster_manager.cds.update_success')).toBe(0);
    expect((await mock.control.release()).released).toBe(true);
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect(await catchAll(envoy)).toBe('BlackHoleCluster');

    const allowAny = await ask('ALLOW_ANY');
    await mock.control.setResources({ sets: [allowAny.imported.spec] });
    await waitFor(async () => (await catchAll(envoy)) === 'PassthroughCluster', {
      timeoutMs: 10_000,
      description: "virtualOutbound's catch-all PassthroughCluster after the ALLOW_ANY push",
    });
  });

  it('serve --from-istio in one step, REGISTRY_ONLY: Envoy gets istiod’s set with BlackHoleCluster as catch-all', async ({
    startEnvoy,
  }) => {
    const serve = cli.start(
      [
        'serve',
        '--from-istio',
        ORDERS,
        '--outbound-traffic-policy',
        'REGISTRY_ONLY',
        '--loopback-listeners',
        '--sds',
        'plaintext',
        ...FREE_SERVE_PORTS,
        ...JSON_LOGS,
      ],
      { timeoutMs: 60_000 },
    );
    const serving = await waitForServing(serve);
    expect(serve.stdout()).toContain('generate: istiod sent: CDS 5, EDS 1, LDS 3, RDS 1');
    const [host, port] = serving.xds.split(':') as [string, string];
    const envoy = await startEnvoy({
      bootstrap: makeSidecarBootstrap({
        discoveryHost: host,
        discoveryPort: Number(port),
        adminPort: 0,
      }),
    });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    expect(await catchAll(envoy)).toBe('BlackHoleCluster');
  });

  it('the istio ConfigMap’s mesh reaches istiod; a config istiod cannot read is refused in its words', async () => {
    const configMap = join(dir, 'mesh-configmap.yaml');
    writeFileSync(
      configMap,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\n' +
        'data: {mesh: "outboundTrafficPolicy: {mode: REGISTRY_ONLY}"}\n',
    );
    const generated = await generateForPod({ files: [ORDERS, configMap] });
    const outbound = generated.imported.spec.resources.find(
      (r) => (r as { name?: string }).name === 'virtualOutbound',
    ) as { filter_chains: { name: string; filters: { typed_config: { cluster: string } }[] }[] };
    expect(
      outbound.filter_chains.map((c) => `${c.name} ${c.filters[0]?.typed_config.cluster}`),
    ).toEqual([
      'virtualOutbound-blackhole BlackHoleCluster',
      'virtualOutbound-catchall-tcp BlackHoleCluster',
    ]);

    const bad = join(dir, 'bad-sidecar.yaml');
    writeFileSync(
      bad,
      'apiVersion: networking.istio.io/v1\nkind: Sidecar\n' +
        'metadata: {name: default, namespace: default}\nspec: {egress: 5}\n',
    );
    const run = await cli.run(['generate', ORDERS, bad], { timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mock-istiod: istiod did not accept the input:');
    expect(run.stderr).toContain(
      'istiod-ref: failed to read config: cannot parse proto message for default',
    );
    expect(run.stderr).not.toContain('    at ');
  });

  it('a node id istiod cannot parse: istiod’s own reason, one line', async () => {
    const run = await cli.run(['generate', ORDERS, '--node', 'nonsense'], { timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mock-istiod: istiod did not answer node nonsense:');
    expect(run.stderr).toContain(
      '--node: stream ended: 3 missing parts in the service node "nonsense"',
    );
  });

  it('without istiod-ref: one line naming npm run install-istio', async () => {
    const run = await cli.run(['generate', ORDERS], {
      podEnv: { ISTIO_BIN_DIR: join(dir, 'no-istio') },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('npm run install-istio');
    expect(run.stderr).not.toContain('    at ');
  });
});
