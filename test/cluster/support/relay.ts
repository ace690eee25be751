/**
 * The relay's cluster test, its manifests: istiod's own xDS server (istiod-ref, its image from
 * scripts/build-cluster-images.sh) as the mesh's istiod upstream, deploy/relay pointed at it,
 * and the lab's client as a pod redirected to the relay by its `proxy.istio.io/config`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO, kubectl } from './kube.js';

/** What istiod-ref knows of the cluster: the lab's orders, and a Service only it has. */
export const ISTIOD_REF_INPUT = `apiVersion: v1
kind: Service
metadata: {name: orders, namespace: default}
spec:
  selector: {app: orders}
  ports: [{name: http, port: 8080, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: mesh-only, namespace: default}
spec:
  selector: {app: mesh-only}
  ports: [{name: http, port: 9090, targetPort: 9090}]
`;

/** The cluster its istiod-ref reads: a Service only it knows, and the cluster it names. */
export const MESH_ONLY_CLUSTER = 'outbound|9090||mesh-only.default.svc.cluster.local';

export const ISTIOD_REF_ADDRESS = 'istiod-ref.istio-system.svc:15010';

export function istiodRefManifests(image: string): string {
  const labels = { app: 'istiod-ref', 'mock-istiod-test': 'cluster' };
  const docs = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'istiod-ref-input', namespace: 'istio-system', labels },
      data: { 'kube.yaml': ISTIOD_REF_INPUT },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'istiod-ref', namespace: 'istio-system', labels },
      spec: {
        selector: { matchLabels: { app: 'istiod-ref' } },
        template: {
          metadata: { labels, annotations: { 'sidecar.istio.io/inject': 'false' } },
          spec: {
            containers: [
              {
                name: 'discovery',
                image,
                imagePullPolicy: 'Never',
                args: ['-kube', '/etc/istiod-ref/kube.yaml', '-xds', '0.0.0.0:15010'],
                ports: [{ name: 'grpc-xds', containerPort: 15010 }],
                readinessProbe: { tcpSocket: { port: 15010 }, periodSeconds: 2 },
                volumeMounts: [{ name: 'input', mountPath: '/etc/istiod-ref' }],
              },
            ],
            volumes: [{ name: 'input', configMap: { name: 'istiod-ref-input' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'istiod-ref', namespace: 'istio-system', labels },
      spec: {
        selector: { app: 'istiod-ref' },
        ports: [{ name: 'grpc-xds', port: 15010, targetPort: 15010 }],
      },
    },
  ];
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}

interface Container {
  image?: string;
  imagePullPolicy?: string;
  args?: string[];
}
interface KubeObject {
  kind?: string;
  spec?: { template?: { spec?: { containers?: Container[] } } };
}

/**
 * deploy/relay as kustomize renders it, with the imported image, relaying to istiod-ref, and
 * dropping the filters of Istio's own Envoy build (this cluster's sidecars run upstream Envoy).
 */
export async function relayManifests(image: string): Promise<string> {
  const docs = parseAllDocuments(await kubectl(['kustomize', join(REPO, 'deploy/relay')]))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
  for (const doc of docs) {
    for (const container of doc.spec?.template?.spec?.containers ?? []) {
      container.image = image;
      container.imagePullPolicy = 'Never';
      container.args = [
        ...(container.args ?? []).map((a) =>
          a.startsWith('--relay=') ? `--relay=${ISTIOD_REF_ADDRESS}` : a,
        ),
        '--relay-drop-unknown-extensions',
      ];
    }
  }
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}

/**
 * The lab's client as `relayed`, its sidecar sent to the relay by the one annotation the
 * recipe adds (docs/relay.md#in-a-cluster).
 */
export function relayedManifests(): string {
  const client = readFileSync(join(REPO, 'examples/cluster/client.yaml'), 'utf8');
  return client
    .replaceAll('client', 'relayed')
    .replace(
      'proxy.istio.io/config: |\n',
      'proxy.istio.io/config: |\n          discoveryAddress: mock-istiod-relay.istio-system.svc:15012\n',
    );
}
