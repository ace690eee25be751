/**
 * The YAML `generate` takes, sorted for istiod-ref (src/generate/kube-input.ts): a Deployment
 * becomes a running pod with an IP, Istio configs and the istio ConfigMap's mesh go apart,
 * and every mistake is named at its file and document.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMesh, readInput } from '../../src/generate/kube-input.js';

const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-generate-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('readInput', () => {
  it('sorts the lab example: the Service for -kube, the Deployment as a running pod orders-0', () => {
    const read = readInput(['examples/generate/orders.yaml']);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.pods).toEqual([
      {
        name: 'orders-0',
        namespace: 'default',
        ip: '10.1.0.7',
        labels: { app: 'orders' },
        annotations: {},
        ports: [8101],
      },
    ]);
    expect(read.value.kube.map((k) => k['kind'])).toEqual(['Service', 'Pod']);
    expect(read.value.kube[1]).toMatchObject({
      status: { phase: 'Running', podIP: '10.1.0.7', conditions: [{ type: 'Ready' }] },
    });
    expect(read.value.config).toEqual([]);
    expect(read.value.mesh).toBeUndefined();
  });

  it('takes Istio configs apart, the mesh from the istio ConfigMap, and a pod’s own IP', () => {
    const path = file(
      'mixed.yaml',
      [
        'apiVersion: networking.istio.io/v1',
        'kind: Sidecar',
        'metadata: {name: default, namespace: default}',
        'spec: {outboundTrafficPolicy: {mode: REGISTRY_ONLY}}',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: istio, namespace: istio-system}',
        'data: {mesh: "outboundTrafficPolicy: {mode: REGISTRY_ONLY}"}',
        '---',
        'apiVersion: v1',
        'kind: Pod',
        "metadata: {name: p, namespace: shop, annotations: {'inject.istio.io/templates': grpc-agent}}",
        'spec: {containers: [{name: app, image: x, ports: [{containerPort: 7070}]}, {name: b, ports: [{containerPort: 7070}, {containerPort: 15000}]}]}',
        'status: {podIP: 10.9.0.1}',
      ].join('\n'),
    );
    const read = readInput([path]);
    expect(read.ok && read.value.config.map((c) => c['kind'])).toEqual(['Sidecar']);
    expect(read.ok && read.value.mesh).toBe('outboundTrafficPolicy: {mode: REGISTRY_ONLY}');
    expect(read.ok && read.value.pods).toEqual([
      {
        name: 'p',
        namespace: 'shop',
        ip: '10.9.0.1',
        labels: {},
        annotations: { 'inject.istio.io/templates': 'grpc-agent' },
        ports: [7070, 15000],
      },
    ]);
  });

  it('takes a List, as kubectl get -o yaml prints several objects: each item as if alone', () => {
    const pod = `  - apiVersion: v1
    kind: Pod
    metadata: {name: echo-7d9f-x2k4q, namespace: default, labels: {app: echo}}
    spec: {containers: [{name: app, image: echo, ports: [{containerPort: 7070}]}]}
    status: {podIP: 10.244.0.9}
`;
    const secret = `  - apiVersion: v1
    kind: Secret
    metadata: {name: nope, namespace: default}
`;
    const pods = readInput([file('pods.yaml', `apiVersion: v1\nkind: List\nitems:\n${pod}`)]);
    expect(pods.ok && pods.value.pods.map((p) => `${p.name} ${p.ip} ${p.ports.join(',')}`)).toEqual(
      ['echo-7d9f-x2k4q 10.244.0.9 7070'],
    );
    const mixed = file('mixed.yaml', `apiVersion: v1\nkind: List\nitems:\n${pod}${secret}`);
    const read = readInput([mixed]);
    expect(read.ok ? [] : read.problems).toEqual([
      {
        path: `${mixed}[0].items[1].kind`,
        message: expect.stringMatching(/^Secret: expected one of Service, Pod, /) as string,
      },
    ]);
  });

  it('names each mistake at its file and document', () => {
    const path = file(
      'bad.yaml',
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {name: s}',
        '---',
        'kind: Service',
        '---',
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: d}',
        'spec: {}',
      ].join('\n'),
    );
    const read = readInput([path]);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems).toEqual([
      {
        path: `${path}[0].kind`,
        message: expect.stringContaining(
          'Secret: expected one of Service, Pod, Deployment',
        ) as string,
      },
      { path: `${path}[1]`, message: 'expected a Kubernetes object with apiVersion and kind' },
      { path: `${path}[2].spec.template`, message: 'expected the pod template' },
    ]);
  });

  it('refuses input with no pod: istiod generates a sidecar for a pod', () => {
    const path = file('svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n');
    const read = readInput([path]);
    expect(!read.ok && read.problems[0]?.message).toContain('expected a Pod or a Deployment');
  });

  it('a missing file is a problem at its path, not a stack trace', () => {
    const read = readInput([join(dir, 'nowhere.yaml')]);
    expect(!read.ok && read.problems).toEqual([
      { path: join(dir, 'nowhere.yaml'), message: 'cannot read: ENOENT' },
    ]);
  });
});

describe('parseMesh', () => {
  it('reads a MeshConfig object, an empty text as {}, and refuses a list', () => {
    expect(parseMesh('outboundTrafficPolicy: {mode: ALLOW_ANY}', 'm')).toEqual({
      ok: true,
      value: { outboundTrafficPolicy: { mode: 'ALLOW_ANY' } },
    });
    expect(parseMesh('', 'm')).toEqual({ ok: true, value: {} });
    expect(parseMesh('- a', 'm')).toEqual({
      ok: false,
      problems: [{ path: 'm', message: 'expected a MeshConfig object' }],
    });
  });
});
