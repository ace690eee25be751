/**
 * deploy/ validated offline against the Kubernetes API's schemas (the `kubernetes-models`
 * package: its validators are generated from the API's OpenAPI document), then checked for
 * what a schema cannot see: names that must agree between objects, the files the mock reads,
 * and the image's tag. No cluster is reachable here (docs/kubernetes.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Namespace, Service, ServiceAccount, type IService } from 'kubernetes-models/v1';
import { ClusterRole, ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { makeLabResources } from '../../src/resources/lab.js';
import { parseTimeline } from '../../src/timelines/timeline.js';
import { packageRoot } from '../../src/util/package-root.js';
import {
  DEPLOY_DIR,
  deployFiles,
  manifest,
  readManifests,
  type Manifest,
  type ManifestBody,
} from '../support/harness/deploy-manifests.js';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
};

/** The schema's complaint about one object, or undefined when it is valid. */
function schemaErrors(m: ManifestBody): string | undefined {
  const Model = MODELS[`${m.apiVersion}/${m.kind}`];
  if (!Model) return `no schema for ${m.apiVersion} ${m.kind} in this test`;
  try {
    new Model(m as never).validate();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

interface Kustomization {
  resources: string[];
  images?: { name: string; newTag?: string }[];
}

const all = readManifests();
const objects = all.filter((m) => m.kind !== 'Kustomization');
const deployment = manifest<IDeployment & Manifest>(all, 'Deployment', 'mock-istiod');
const pod = deployment.spec!.template.spec!;
const container = pod.containers[0]!;
const configData = manifest<Manifest & { data: Record<string, string> }>(
  all,
  'ConfigMap',
  'mock-istiod-config',
).data;

describe('deploy/ against the Kubernetes API schemas', () => {
  it.each(objects.map((m) => [`${m.file}: ${m.kind} ${m.metadata.name}`, m] as const))(
    '%s is valid',
    (_name, m) => {
      expect(schemaErrors(m)).toBeUndefined();
      // Everything lives in istio-system; cluster-wide kinds name it where they point into it.
      const namespace =
        m.kind === 'Namespace'
          ? m.metadata.name
          : m.kind === 'ClusterRoleBinding'
            ? (m as { subjects?: { namespace?: string }[] }).subjects?.[0]?.namespace
            : m.kind === 'ClusterRole' && m.metadata.namespace === undefined
              ? 'istio-system' // cluster-wide: it has none, and must not
              : m.metadata.namespace;
      expect(namespace).toBe('istio-system');
    },
  );

  it('the validator rejects what the API server would', () => {
    const broken = structuredClone(deployment);
    delete (broken.spec as Partial<typeof broken.spec>)!.selector;
    (
      broken.spec!.template.spec!.containers[0]!.ports![0] as { containerPort: unknown }
    ).containerPort = '15012';
    const errors = schemaErrors(broken);
    expect(errors).toContain('must have required property selector');
    expect(errors).toContain('containerPort must be integer');
  });
});

describe('deploy/ holds together', () => {
  it('every file is in a kustomization, and every kustomization names files that exist', () => {
    const listed = new Set<string>();
    for (const file of deployFiles().filter((f) => f.endsWith('kustomization.yaml'))) {
      const k = parse(readFileSync(join(DEPLOY_DIR, file), 'utf8')) as Kustomization;
      for (const entry of k.resources) {
        const path = join(dirname(file), entry);
        const target = join(DEPLOY_DIR, path);
        expect(existsSync(target), `${file}: ${entry}`).toBe(true);
        if (entry.endsWith('.yaml')) listed.add(join(path));
      }
    }
    const manifests = deployFiles().filter((f) => !f.endsWith('kustomization.yaml'));
    expect(manifests.filter((f) => !listed.has(f))).toEqual([]);
  });

  it("every Service selects a mock's pods and targets ports its container names", () => {
    const deployments = objects.filter((m) => m.kind === 'Deployment') as (IDeployment &
      Manifest)[];
    const services = objects.filter((m) => m.kind === 'Service') as (IService & Manifest)[];
    expect(services.map((s) => s.metadata.name).sort()).toEqual([
      'istiod',
      'mock-istiod',
      'mock-istiod-relay',
    ]);
    for (const service of services) {
      const selected = deployments.filter((d) =>
        Object.entries(service.spec!.selector!).every(
          ([key, value]) => d.spec!.template.metadata!.labels![key] === value,
        ),
      );
      expect(selected.length, `${service.metadata.name} selects one Deployment`).toBe(1);
      const ports = new Set(
        selected[0]!.spec!.template.spec!.containers[0]!.ports!.map((p) => p.name),
      );
      const served = service.spec!.ports!.map((p) => [p.port, p.targetPort]);
      expect(served).toEqual([
        [15012, 'grpc-xds'],
        [15014, 'http-control'],
      ]);
      for (const [, target] of served) expect(ports.has(target as string)).toBe(true);
    }
    expect(deployment.spec!.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'mock-istiod',
    });
  });

  it('the probes are HTTP probes on the control port, which no fault closes', () => {
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/ready', port: 'http-control' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http-control' });
    expect(container.readinessProbe?.tcpSocket).toBeUndefined();
    expect(container.livenessProbe?.tcpSocket).toBeUndefined();
  });

  it('the volumes name the ConfigMap keys and the Secret the docs create', () => {
    const volumes = Object.fromEntries(pod.volumes!.map((v) => [v.name, v]));
    expect(volumes['tls']?.secret?.secretName).toBe('mock-istiod-tls');
    for (const name of ['resources', 'scenarios']) {
      for (const item of volumes[name]!.configMap!.items!) {
        expect(Object.keys(configData)).toContain(item.key);
      }
    }
    for (const mount of container.volumeMounts!) expect(volumes[mount.name]).toBeDefined();
    const docs = readFileSync(join(packageRoot(), 'docs', 'kubernetes.md'), 'utf8');
    expect(docs).toContain('secret generic mock-istiod-tls');
    expect(docs).toContain('secret generic mock-istiod-control');
  });

  it("the ConfigMap's resources are the lab on a pod's ports, and its timeline parses", () => {
    const served = parse(configData['resources.yaml']!) as { resources: unknown[] };
    const lab = makeLabResources({
      listenerAddress: '0.0.0.0',
      outboundPort: 15001,
      appPort: 8080,
    });
    expect(served.resources).toEqual(JSON.parse(JSON.stringify(lab)));
    const timeline = parseTimeline(configData['timeline.yaml']!);
    expect(timeline.ok ? timeline.value.steps.length : timeline.problems).toBe(5);
    // docs/kubernetes.md says it is examples/classroom.yaml.
    const classroom = readFileSync(join(packageRoot(), 'examples', 'classroom.yaml'), 'utf8');
    expect(configData['timeline.yaml']).toBe(classroom.replace(/^#.*\n/, ''));
  });

  it("the image's tag is the package's version", () => {
    const k = parse(
      readFileSync(join(DEPLOY_DIR, 'base', 'kustomization.yaml'), 'utf8'),
    ) as Kustomization;
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(container.image).toBe('mock-istiod');
    expect(k.images).toEqual([{ name: 'mock-istiod', newTag: pkg.version }]);
  });

  it('the pod runs as a user with nothing to spare', () => {
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext?.capabilities?.drop).toEqual(['ALL']);
    expect(container.resources?.requests?.memory).toBe('192Mi');
  });
});
