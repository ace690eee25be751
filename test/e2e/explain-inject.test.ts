/**
 * `mock-istiod explain --inject` / `--from-inject`: the injection values come from the real,
 * pinned istioctl's kube-inject output (npm run install-istio), not the seed's table, and the
 * output says which. A Deployment with `traffic.sidecar.istio.io/excludeInboundPorts: "8080"`
 * makes istioctl write `-d 15090,15021,8080,15020`, and explain then has a row for 8080 that
 * the seed's table does not. The config_dump is a real sidecar's, captured with istioctl
 * (test/fixtures/import/istioctl-all.json). The Deployment is the example the docs use.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { makeLabResources } from '../../src/resources/lab.js';
import { sidecarBootstrap } from '../../src/testing/envoy.js';
import { freePorts } from '../../src/util/ports.js';
import { it } from '../support/fixtures/test.js';
import { findIstio } from '../../src/envoy/find-istio.js';
import { useCli } from '../support/fixtures/cli.js';

const cli = useCli();
const DUMP = 'test/fixtures/import/istioctl-all.json';
const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-explain-inject-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The lab's Deployment with `excludeInboundPorts: '8080'` (docs/interception.md's too). */
const EXCLUDING_8080 = 'examples/inject/orders-exclude-8080.yaml';

interface Body {
  values: {
    source: string;
    description: string;
    excludedInboundPorts: number[];
    differences: string[];
  };
  configurations: { rows: { what: string; value: string }[] }[];
}

describe('explain with the values of real istioctl kube-inject output', () => {
  it('--inject <inject --json output> takes -d from istioctl (8080 excluded); the default stays the seed’s', async () => {
    findIstio(); // fails naming `npm run install-istio` when the binaries are missing
    const deployment = EXCLUDING_8080;
    const injected = await cli.run(['inject', '-f', deployment, '--json'], { timeoutMs: 60_000 });
    expect(injected.stderr).toBe('');
    expect(injected.code).toBe(0);
    const injectFile = join(dir, 'injected.json');
    writeFileSync(injectFile, injected.stdout);

    const seed = await cli.run(['explain', '-f', DUMP, '--json']);
    expect(seed.code).toBe(0);
    const seedBody = JSON.parse(seed.stdout) as Body;
    expect(seedBody.values.source).toBe('seed');
    expect(seedBody.values.excludedInboundPorts).toEqual([15090, 15021, 15020]);
    expect(seedBody.configurations[0]?.rows.map((r) => r.what)).not.toContain(
      'inbound 8080 excluded',
    );

    const fromInject = await cli.run(['explain', '-f', DUMP, '--inject', injectFile, '--json']);
    expect(fromInject.stderr).toBe('');
    expect(fromInject.code).toBe(0);
    const body = JSON.parse(fromInject.stdout) as Body;
    expect(body.values.source).toBe('inject');
    expect(body.values.excludedInboundPorts).toEqual([15090, 15021, 8080, 15020]);
    expect(body.values.differences).toEqual([
      'istio-init -d (inbound ports excluded): 15090,15021,8080,15020 (seed 15090,15021,15020)',
    ]);
    expect(body.configurations[0]?.rows).toContainEqual(
      expect.objectContaining({ what: 'inbound 8080 excluded', value: 'istio-init -d …8080…' }),
    );

    // The injected YAML itself (what `inject` prints, table and all) reads the same.
    const text = await cli.run(['inject', '-f', deployment], { timeoutMs: 60_000 });
    const yamlFile = join(dir, 'injected.yaml');
    writeFileSync(yamlFile, text.stdout);
    const plain = await cli.run(['explain', '-f', DUMP, '--inject', yamlFile]);
    expect(plain.code).toBe(0);
    const lines = plain.stdout.split('\n');
    expect(lines[0]).toBe(`values: istioctl kube-inject output (--inject ${yamlFile})`);
    expect(lines[1]).toBe(
      '  differs from the seed: istio-init -d (inbound ports excluded): 15090,15021,8080,15020 (seed 15090,15021,15020)',
    );
    expect(plain.stdout).toMatch(
      /istio-init -d …8080… +inbound 8080 excluded: a port; not captured/,
    );
  });

  it('--from-inject runs istioctl on the lab’s Deployment: the seed’s numbers, said to come from istioctl', async () => {
    findIstio();
    const run = await cli.run(['explain', '-f', DUMP, '--from-inject'], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      "values: istioctl kube-inject output (istioctl kube-inject of the lab's orders-v1 Deployment)",
    );
    expect(lines[1]).toBe(`${DUMP}:`); // no differences from the seed for the lab's Deployment
    expect(run.stdout).toMatch(/istio-init -p 15001 +outbound capture: listener virtualOutbound/);
  });

  it('refuses a file that is not injection output, naming what it lacks', async () => {
    const deployment = EXCLUDING_8080;
    const run = await cli.run(['explain', '-f', DUMP, '--inject', deployment]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `--inject ${deployment}: the Deployment has no istio-proxy container (containers: orders)`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const both = await cli.run(['explain', '-f', DUMP, '--inject', deployment, '--from-inject']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --inject <file> or --from-inject, not both');
  });

  it('GET /ui/explain?values=inject: a real Envoy’s rows with the values of istioctl’s output, said so; a bad values is refused', async ({
    startMock,
    startEnvoy,
  }) => {
    findIstio();
    const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
    const mock = await startMock({ resources: makeLabResources({ inboundPort, outboundPort }) });
    const envoy = await startEnvoy({ bootstrap: sidecarBootstrap(mock) });
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const url = (query: string) =>
      `http://127.0.0.1:${mock.addresses.control?.port}/ui/explain?admin=${encodeURIComponent(envoy.adminUrl)}${query}`;
    type Answer = Body & { values: { source: string; description: string } };

    const seed = (await (await fetch(url(''))).json()) as Answer;
    expect(seed.values).toEqual({
      source: 'seed',
      description: "the seed's table (a default install)",
      differences: [],
    });

    const res = await fetch(url('&values=inject'));
    expect(res.status).toBe(200);
    const injected = (await res.json()) as Answer;
    expect(injected.values).toEqual({
      source: 'inject',
      description:
        "istioctl kube-inject output (istioctl kube-inject of the lab's orders-v1 Deployment)",
      differences: [],
    });
    const outbound = injected.configurations[0]?.rows.find((r) => r.what === 'outbound capture');
    expect(outbound?.value).toBe('istio-init -p 15001');

    const bad = await fetch(url('&values=istioctl'));
    expect(bad.status).toBe(400);
    const refusal = (await bad.json()) as { error: string; problems: { path: string }[] };
    expect(refusal.error).toBe(
      'invalid explain request: values: expected one of: seed, inject; found "istioctl"',
    );
    expect(refusal.problems.map((p) => p.path)).toEqual(['values']);
  });
});
