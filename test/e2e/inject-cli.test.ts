/**
 * `mock-istiod inject` with the real, pinned istioctl (npm run install-istio), offline: the
 * lab's Deployment in, Istio's injected YAML out, and the table of the sidecar lab's numbers
 * (shared/seeds, chapter 003) read back from that output, each equal to the seed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { findIstio } from '../../src/envoy/find-istio.js';
import { useCli } from '../support/fixtures/cli.js';

const cli = useCli();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The seed's table (shared/seeds/README.md, 003), as the command's rows name it. */
const SEED: Record<string, string> = {
  containers: 'orders,istio-proxy (init istio-init)',
  outboundCapturePort: '15001',
  inboundCapturePort: '15006',
  excludedUid: '1337',
  mode: 'REDIRECT',
  excludedInboundPorts: '15090,15021,15020',
  readinessProbe: '15021 /healthz/ready',
  prometheusPort: '15020',
  prometheusPath: '/stats/prometheus',
  prometheusScrape: 'true',
  envoyPromPort: '15090',
  proxyRunAsUser: '1337',
  proxyRunAsNonRoot: 'true',
  proxyCapsDrop: 'ALL',
  initRunAsUser: '0',
  initRunAsNonRoot: 'false',
  initCapsAdd: 'NET_ADMIN,NET_RAW',
};

interface Row {
  key: string;
  value?: string;
  seed: string;
  where: string;
}

describe('mock-istiod inject (the real istioctl kube-inject, offline)', () => {
  it('injects the lab Deployment and reads the seed values back from the output', async () => {
    findIstio(); // fails naming `npm run install-istio` when the binaries are missing
    const run = await cli.run(['inject', '--json'], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { command: string; injected: string; values: Row[] };
    expect(body.command).toMatch(/^istioctl kube-inject -f .* -r default$/);
    const values = Object.fromEntries(body.values.map((r) => [r.key, r.value]));
    expect(values).toEqual(SEED);
    for (const row of body.values) expect(row.where).not.toBe('not found');
    expect(body.values.find((r) => r.key === 'excludedUid')?.where).toMatch(
      /^istio-init spec\.template\.spec\.initContainers\[0\]\.args\[\d+\] \(after -u\)$/,
    );
    const docs = parseAllDocuments(body.injected).map((d) => d.toJS() as { kind?: string });
    expect(docs[0]?.kind).toBe('Deployment');
  });

  it('prints the YAML, then the table, every SEED cell "="', async () => {
    const run = await cli.run(['inject'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const [yamlPart, tablePart = ''] = run.stdout.split('\n---\n# read from the output above');
    expect(yamlPart).toContain('- istio-iptables');
    const rows = tablePart.trim().split('\n').slice(1);
    expect(rows[0]).toMatch(/^WHAT\s+VALUE\s+SEED\s+WHERE$/);
    expect(rows).toHaveLength(1 + Object.keys(SEED).length);
    for (const row of rows.slice(1)) expect(row).toMatch(/\s=\s+\S/);
    expect(rows).toContainEqual(
      expect.stringMatching(/^istio-init -d \(inbound ports excluded\)\s+15090,15021,15020\s+=/),
    );
  });

  it('takes -f with a bare Pod, and finds the same numbers in its spec', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-inject-test-'));
    dirs.push(dir);
    const file = join(dir, 'pod.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Pod\nmetadata: {name: reviews-0, namespace: default}\n' +
        'spec:\n  containers:\n    - {name: reviews, image: example/reviews, ports: [{containerPort: 9080}]}\n',
    );
    const run = await cli.run(['inject', '-f', file, '--json'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const rows = (JSON.parse(run.stdout) as { values: Row[] }).values;
    expect(rows.find((r) => r.key === 'containers')?.value).toBe(
      'reviews,istio-proxy (init istio-init)',
    );
    expect(rows.find((r) => r.key === 'excludedUid')?.where).toMatch(
      /^istio-init spec\.initContainers\[0\]\.args\[\d+\] \(after -u\)$/,
    );
    expect(rows.filter((r) => r.key !== 'containers' && r.value !== SEED[r.key])).toEqual([]);
  });

  it("injects a pod annotated with Istio's grpc-agent template as that template does", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-inject-test-'));
    dirs.push(dir);
    const file = join(dir, 'echo.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: echo-0\n  namespace: default\n' +
        '  annotations: {inject.istio.io/templates: grpc-agent}\n' +
        'spec:\n  containers:\n    - {name: echo, image: example/echo, ports: [{containerPort: 7070}]}\n',
    );
    const run = await cli.run(['inject', '-f', file, '--yaml-only'], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    type Container = { name: string; env?: { name: string; value?: string }[] };
    const pod = parseAllDocuments(run.stdout)[0]?.toJS() as {
      spec: { containers: Container[]; initContainers?: Container[] };
    };
    const env = (c: Container | undefined) =>
      Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));
    const [app, agent] = pod.spec.containers;
    // The app is pointed at the agent's bootstrap; the agent runs no Envoy and asks as gRPC.
    expect(env(app)).toMatchObject({ GRPC_XDS_BOOTSTRAP: '/etc/istio/proxy/grpc-bootstrap.json' });
    expect(agent?.name).toBe('istio-proxy');
    expect(env(agent)).toMatchObject({ DISABLE_ENVOY: 'true', ISTIO_META_GENERATOR: 'grpc' });
    // No traffic capture: no istio-init.
    expect(pod.spec.initContainers ?? []).toEqual([]);
  });

  it("takes -f, and quotes istioctl's stderr when it fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-inject-test-'));
    dirs.push(dir);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: v1\nkind: Pod\nmetadata: [not, a, map]\n');
    const run = await cli.run(['inject', '-f', bad], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^mock-istiod: istioctl kube-inject exited with code \d+; its stderr:\n {2}\| /,
    );
  });

  it('names npm run install-istio when the binaries are missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-inject-test-'));
    dirs.push(dir);
    const run = await cli.run(['inject'], {
      podEnv: { ISTIO_BIN_DIR: dir },
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `mock-istiod: ${dir}/pilot-agent not found: run \`npm run install-istio\` (scripts/install-istio.sh; needs Go) or set ISTIO_BIN_DIR\n`,
    );
  });
});
