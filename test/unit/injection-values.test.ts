/**
 * Reading the seed's interception numbers out of `istioctl kube-inject` output. The fixture
 * is the real output of `mock-istiod inject` on the lab's orders-v1 Deployment (the pinned
 * istioctl, Istio's istio-discovery chart), captured once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatValues } from '../../src/cli/pod/inject.js';
import { injectorValues } from '../../src/inject/injection-files.js';
import { findPod, readInjectionValues } from '../../src/inject/injection-values.js';
import { packageRoot } from '../../src/util/package-root.js';

const injected = readFileSync(
  join(packageRoot(), 'test/fixtures/inject/orders-v1-injected.yaml'),
  'utf8',
);

describe('readInjectionValues on real kube-inject output', () => {
  const pod = findPod(injected);

  it('finds the Deployment and its pod template', () => {
    expect(pod?.kind).toBe('Deployment');
    expect(pod?.prefix).toBe('spec.template.');
  });

  it('reads every value of the seed table, each equal to the seed, with where it was', () => {
    if (!pod) throw new Error('no pod in the fixture');
    const rows = readInjectionValues(pod);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    expect(rows.filter((r) => r.value !== r.seed)).toEqual([]);
    expect(byKey['excludedUid']).toEqual({
      key: 'excludedUid',
      what: 'istio-init -u (UID excluded from capture)',
      value: '1337',
      seed: '1337',
      where: 'istio-init spec.template.spec.initContainers[0].args[6] (after -u)',
    });
    expect(byKey['excludedInboundPorts']?.value).toBe('15090,15021,15020');
    expect(byKey['proxyRunAsUser']?.where).toBe(
      'istio-proxy spec.template.spec.containers[1].securityContext.runAsUser',
    );
    expect(byKey['initCapsAdd']?.value).toBe('NET_ADMIN,NET_RAW');
    expect(byKey['prometheusPort']?.where).toBe(
      'pod spec.template.metadata.annotations["prometheus.io/port"]',
    );
  });

  it('reads a bare Pod, and says "not found" for what a changed template dropped', () => {
    // The same pod spec as a bare Pod, its istio-init without `-u 1337`.
    const doc = findPod(injected);
    if (!doc) throw new Error('no pod in the fixture');
    const init = (doc.spec['initContainers'] as { args: string[] }[])[0];
    if (!init) throw new Error('no init container');
    init.args = init.args.filter((a, i, all) => a !== '-u' && all[i - 1] !== '-u');
    const asPod = JSON.stringify({ kind: 'Pod', metadata: doc.metadata, spec: doc.spec });
    const pod2 = findPod(asPod);
    expect(pod2?.prefix).toBe('');
    const uid = readInjectionValues(pod2 ?? doc).find((r) => r.key === 'excludedUid');
    expect(uid).toMatchObject({ value: undefined, where: 'not found' });
    expect(readInjectionValues(pod2 ?? doc).find((r) => r.key === 'mode')?.where).toBe(
      'istio-init spec.initContainers[0].args[6] (after -m)',
    );
  });

  it('prints a table whose SEED column is "=" where the output agrees', () => {
    if (!pod) throw new Error('no pod in the fixture');
    const lines = formatValues(readInjectionValues(pod)).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHAT\s+VALUE\s+SEED\s+WHERE$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^istio-init -p \(outbound capture port\)\s+15001\s+=\s+istio-init /),
    );
    expect(lines).toHaveLength(18);
  });
});

describe('injectorValues', () => {
  it("keeps what the chart's injector ConfigMap keeps, from the chart's defaults", () => {
    const values = injectorValues({
      _internal_defaults_do_not_set: {
        global: { hub: 'h' },
        sidecarInjectorWebhook: { x: 1 },
        revision: '',
        cni: { enabled: false },
        env: {},
        replicaCount: 1,
        gateways: { securityContext: {}, other: 1 },
      },
    });
    expect(values).toEqual({
      global: { hub: 'h' },
      sidecarInjectorWebhook: { x: 1 },
      revision: '',
      pilot: { cni: { enabled: false }, env: {} },
      gateways: { securityContext: {} },
    });
  });
});
