/**
 * The mock as the cluster's istiod, with real sidecars: `deploy/as-istiod` applied to the real
 * single-node cluster (scripts/cluster.sh), the lab's app injected by the real
 * `istioctl kube-inject`, run by the real kubelet with the real pilot-agent and Envoy
 * (the istio-proxy image). Seen the way a user sees it, through `kubectl get pods`, the pod's
 * events, pilot-agent's stats and HTTP to the pods:
 *
 * - withheld: the pod is Running at 1/2, its sidecar's probe on 15021 failing;
 * - released: 2/2, and the app answers through the sidecar;
 * - down: the pod stays Running and serving, with `control_plane.connected_state` 0;
 * - the pods' own tokens (projected, audience `istio-ca`) open their xDS streams and get their
 *   CSRs signed by the mock, which reviews them with this API server (deploy/base's
 *   `--token-review=in-cluster`, xDS authentication on), and two injected pods talk in mutual
 *   TLS;
 * - a pod whose token the cluster did not sign gets nothing: its sidecar's stream ends with
 *   istiod's `authentication failure`, and the pod stays at 1/2;
 * - proxyless gRPC: two pods of Istio's grpc-agent template (examples/cluster/echo-grpc.yaml,
 *   the grpc-go program of examples/grpc-xds-go in the lab-app image), served what istiod's
 *   gRPC generator answers for the running pod; the client pod reaches the server over xDS.
 */
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeInject } from '../../src/inject/kube-inject.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { connectMockIstiod } from '../../src/testing/remote.js';
import type { MockIstiodControl } from '../../src/testing/control.js';
import { waitFor } from '../../src/util/wait.js';
import {
  ISTIOD_REF_ADDRESS,
  MESH_ONLY_CLUSTER,
  istiodRefManifests,
  relayManifests,
  relayedManifests,
} from './support/relay.js';
import {
  REPO,
  eventMessages,
  getPods,
  kubectl,
  onePod,
  podField,
  run,
  sidecarAdmin,
  sidecarStats,
  type PodLine,
} from './support/kube.js';

const APP_PORT = 8080;
const images = inject('clusterImages');
/** An image as containerd names what `podman save` wrote: `localhost/<name>` when bare. */
const imported = (name: string) => (name.includes('/') ? name : `localhost/${name}`);

let work = '';
let control: MockIstiodControl;
/** The control API's token (the Secret mock-istiod-control), the mock's and the relay's. */
let controlToken = '';

async function mockCli(args: string[]): Promise<string> {
  const result = await run(process.execPath, [join(REPO, 'bin/mock-istiod.js'), ...args], {
    timeoutMs: 60_000,
  });
  if (result.code !== 0) throw new Error(`mock-istiod ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

interface Container {
  image?: string;
  imagePullPolicy?: string;
  args?: string[];
}
interface KubeObject {
  kind?: string;
  metadata?: { labels?: Record<string, string> } & Record<string, unknown>;
  spec?: { template?: { spec?: { containers?: Container[] } } };
}

/** Every object of a multi-document YAML. */
function objects(yaml: string): KubeObject[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
}

/** deploy/as-istiod as kustomize renders it, with the imported image and no timeline. */
async function mockManifests(): Promise<string> {
  const docs = objects(await kubectl(['kustomize', join(REPO, 'deploy/as-istiod')]));
  for (const doc of docs) {
    if (doc.kind !== 'Deployment') continue;
    for (const container of doc.spec?.template?.spec?.containers ?? []) {
      container.image = imported(images.mock);
      container.imagePullPolicy = 'Never';
      // The tests drive the faults themselves; the classroom's timeline would interleave.
      container.args = (container.args ?? []).filter((a) => !a.startsWith('--scenario'));
    }
  }
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}

/** The lab's app as examples/cluster/<name>.yaml has it (docs/kubernetes.md applies the same). */
function appManifests(name: 'orders' | 'client'): string {
  return readFileSync(join(REPO, 'examples/cluster', `${name}.yaml`), 'utf8');
}

/** The real istioctl kube-inject, offline, with the sidecar image imported here. */
async function injected(yaml: string): Promise<string> {
  const proxy = imported(images.istioProxy);
  const at = proxy.lastIndexOf(':');
  const path = proxy.slice(0, at);
  const result = await kubeInject({
    input: yaml,
    images: {
      hub: path.slice(0, path.lastIndexOf('/')),
      image: path.slice(path.lastIndexOf('/') + 1),
      tag: proxy.slice(at + 1),
      pullPolicy: 'Never',
    },
  });
  if (!result.ok) throw new Error(`${result.message}: ${result.stderr}`);
  return result.yaml;
}

/**
 * One GET on a connection of its own (`agent: false`). Node's global agent keeps connections
 * alive, and a request reusing one opened before a listener change is served by the old,
 * draining filter chain (Envoy answers it with `connection: close`): the STRICT check below
 * once got a plaintext 200 that way, on the connection of the outage test's request.
 */
function httpGet(
  url: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: 5_000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Waits for a sidecar's `control_plane.connected_state` to read `value`. */
function connectedState(pod: string, value: '0' | '1', timeoutMs: number): Promise<true> {
  return waitFor(
    async () => (await sidecarStats('default', pod)).get('control_plane.connected_state') === value,
    { timeoutMs, intervalMs: 1_000, description: `control_plane.connected_state ${value}` },
  );
}

async function readyPod(app: string, ready: string): Promise<PodLine> {
  return waitFor(
    async () => {
      const pod = await onePod('default', `app=${app}`);
      return pod?.status === 'Running' && pod.ready === ready ? pod : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500, description: `the ${app} pod Running at ${ready}` },
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mock-istiod-cluster-'));
  const certs = join(work, 'istiod-certs');
  await mockCli(['certs', '--tls-dir', certs, '--tls-host', 'mock-istiod.istio-system.svc']);
  const token = (controlToken = randomBytes(24).toString('hex'));
  await kubectl(['create', 'namespace', 'istio-system']);
  const secret = (name: string, from: string) =>
    kubectl(['-n', 'istio-system', 'create', 'secret', 'generic', name, from]);
  await secret('mock-istiod-tls', `--from-file=${certs}`);
  await secret('mock-istiod-control', `--from-literal=token=${token}`);
  await kubectl(['apply', '-f', '-'], { input: await mockManifests() });
  await kubectl(
    ['-n', 'istio-system', 'rollout', 'status', 'deploy/mock-istiod', '--timeout=180s'],
    {
      timeoutMs: 200_000,
    },
  );
  await kubectl([
    '-n',
    'default',
    'create',
    'configmap',
    'istio-ca-root-cert',
    `--from-file=root-cert.pem=${join(certs, 'root-cert.pem')}`,
  ]);
  const mockPod = await onePod('istio-system', 'app.kubernetes.io/name=mock-istiod');
  if (mockPod === undefined) throw new Error('no mock-istiod pod after the rollout');
  const ip = await podField('istio-system', mockPod.name, '{.status.podIP}');
  control = await connectMockIstiod(`http://${ip}:15014`, { token });
}, 300_000);

afterAll(async () => {
  for (const args of [
    [
      '-n',
      'default',
      'delete',
      'deployment,service,serviceaccount,secret',
      '-l',
      'mock-istiod-test=cluster',
    ],
    ['delete', 'namespace', 'istio-system', '--wait=false'],
  ]) {
    await kubectl(args, { timeoutMs: 60_000 }).catch(() => undefined);
  }
  if (work !== '') rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('a sidecar of the real cluster, served by the mock', () => {
  let orders: PodLine;

  it('withheld: the pod is Running at 1/2 and its sidecar probe on 15021 fails', async () => {
    await control.withhold({});
    await kubectl(['apply', '-f', '-'], {
      input: labelled(await injected(appManifests('orders'))),
    });
    orders = await readyPod('orders', '1/2');
    const probe = await waitFor(
      async () =>
        (await eventMessages('default', orders.name)).find(
          (m) => /probe failed/i.test(m) && m.includes(':15021/healthz/ready'),
        ),
      {
        timeoutMs: 60_000,
        intervalMs: 1_000,
        description: 'a failed probe on 15021 in the events',
      },
    );
    expect(probe).toMatch(/^Unhealthy: (Startup|Readiness) probe failed: .*15021\/healthz\/ready/);
    // Still 1/2 after the failure was seen: the app is ready, the sidecar is not.
    const again = await onePod('default', 'app=orders');
    expect(again?.ready).toBe('1/2');
    expect(again?.status).toBe('Running');
  });

  it('released: 2/2, and the app answers through the sidecar', async () => {
    await control.release({});
    orders = await readyPod('orders', '2/2');
    const ip = await podField('default', orders.name, '{.status.podIP}');
    const answer = await httpGet(`http://${ip}:${APP_PORT}/orders`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`ok:${APP_PORT} /orders`);
    // Envoy's router answered it: the request went through virtualInbound.
    expect(answer.headers['x-envoy-upstream-service-time']).toBeDefined();
    const stats = await sidecarStats('default', orders.name);
    expect(Number(stats.get('http.inbound_0.0.0.0_15006.downstream_rq_2xx') ?? 0)).toBeGreaterThan(
      0,
    );
  });

  it('down: the pod stays Running and serving, with connected_state 0', async () => {
    await control.down({});
    try {
      await connectedState(orders.name, '0', 60_000);
      const pod = await onePod('default', 'app=orders');
      expect(pod).toMatchObject({
        name: orders.name,
        ready: '2/2',
        status: 'Running',
        restarts: '0',
      });
      const ip = await podField('default', orders.name, '{.status.podIP}');
      expect((await httpGet(`http://${ip}:${APP_PORT}/during-outage`)).body).toBe(
        `ok:${APP_PORT} /during-outage`,
      );
    } finally {
      await control.up({});
    }
    await connectedState(orders.name, '1', 90_000);
  });

  it("two injected pods talk in mutual TLS, their certificates signed for the cluster's own tokens", async () => {
    await kubectl(['apply', '-f', '-'], {
      input: labelled(await injected(appManifests('client'))),
    });
    const client = await readyPod('client', '2/2');
    const ordersHost = `orders.default.svc.cluster.local`;
    await control.setResources({
      resources: makeLabResources({
        listenerAddress: '0.0.0.0',
        outboundPort: 15001,
        appPort: APP_PORT,
        mtls: true,
        outbound: {
          host: ordersHost,
          port: APP_PORT,
          identities: ['spiffe://cluster.local/ns/default/sa/orders'],
        },
      }),
    });
    const fetched = await waitFor(
      async () => {
        const out = await kubectl([
          '-n',
          'default',
          'exec',
          client.name,
          '-c',
          'app',
          '--',
          'lab-app',
          'fetch',
          `http://${ordersHost}:${APP_PORT}/mtls`,
        ]);
        return out.includes(`ok:${APP_PORT} /mtls`) ? out : undefined;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 1_000,
        description: 'the client reaching orders through both sidecars',
      },
    );
    expect(fetched).toContain('200');
    // Both sides' workload certificates: issued by the mock's root for each pod's identity.
    const rootSerial = new X509Certificate(
      readFileSync(join(work, 'istiod-certs', 'root-cert.pem')),
    ).serialNumber.toLowerCase();
    for (const [pod, sa] of [
      [orders.name, 'orders'],
      [client.name, 'client'],
    ] as const) {
      const certs = await sidecarAdmin('default', pod, 'certs');
      expect(certs).toContain(`spiffe://cluster.local/ns/default/sa/${sa}`);
      // Envoy's /certs names the CA the workload trusts by serial: the mock's root.
      expect(certs.toLowerCase().replace(/[^0-9a-z"]/g, '')).toContain(
        rootSerial.replace(/^0+/, ''),
      );
    }
    const serverStats = await sidecarStats('default', orders.name);
    expect(Number(serverStats.get('listener.0.0.0.0_15006.ssl.handshake') ?? 0)).toBeGreaterThan(0);
    // STRICT: plaintext from outside the mesh is refused by the same listener.
    const ip = await podField('default', orders.name, '{.status.podIP}');
    await expect(httpGet(`http://${ip}:${APP_PORT}/plain`)).rejects.toThrow();
  });
});

/** pilot-agent's line when the control plane refuses its xDS stream (pkg/istio-agent). */
const XDS_REFUSED =
  'upstream terminated with unexpected error rpc error: code = Unauthenticated desc = authentication failure';

/**
 * The injected orders Deployment as `forged`, its projected token (the cluster's, audience
 * istio-ca) replaced by a Secret holding `token`: what a pod holding a stolen or made-up token
 * would send.
 */
function withToken(yaml: string, token: string): string {
  const deployment = objects(yaml).find((d) => d.kind === 'Deployment') as KubeObject & {
    metadata: Record<string, unknown>;
    spec: Record<string, unknown> & {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: { volumes: Volume[] } };
    };
  };
  deployment.metadata['name'] = 'forged';
  deployment.metadata.labels = { app: 'forged' };
  deployment.spec.selector.matchLabels = { app: 'forged' };
  deployment.spec.template.metadata.labels = { app: 'forged' };
  const volumes = deployment.spec.template.spec.volumes;
  const at = volumes.findIndex((v) => v.name === 'istio-token');
  if (at < 0) throw new Error('the injected pod has no istio-token volume');
  volumes[at] = { name: 'istio-token', secret: { secretName: 'forged-istio-token' } };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'forged-istio-token', namespace: 'default' },
    stringData: { 'istio-token': token },
  };
  // Its ServiceAccount too, so that the case also runs on its own.
  const account = objects(yaml).filter((d) => d.kind === 'ServiceAccount');
  return [...account, secret, deployment].map((d) => JSON.stringify(d)).join('\n---\n');
}

interface Volume {
  name: string;
  [source: string]: unknown;
}

describe("xDS streams reviewed with the cluster's TokenReview", () => {
  it("a pod whose token the cluster did not sign gets nothing: istiod's authentication failure, 1/2", async () => {
    // Signed by the mock's own key, for the right audience, namespace and account: only the
    // cluster's review can tell it is not the cluster's.
    const forged = (
      await mockCli([
        'token',
        '--tls-dir',
        join(work, 'istiod-certs'),
        '--ns',
        'default',
        '--sa',
        'orders',
      ])
    ).trim();
    await kubectl(['apply', '-f', '-'], {
      input: labelled(withToken(await injected(appManifests('orders')), forged)),
    });
    const pod = await readyPod('forged', '1/2');
    const refused = await waitFor(
      async () => {
        const logs = await kubectl(['-n', 'default', 'logs', pod.name, '-c', 'istio-proxy']);
        return logs.includes(XDS_REFUSED) ? logs : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1_000, description: "the sidecar's refused xDS stream" },
    );
    expect(refused).toContain(XDS_REFUSED);
    const mockLogs = await kubectl(['-n', 'istio-system', 'logs', 'deploy/mock-istiod']);
    expect(mockLogs).toMatch(
      /Failed to authenticate client from [^"]*: Authenticator ClientCertAuthenticator: no verified chain is found; Authenticator KubeJWTAuthenticator: failed to validate the JWT from cluster \\"[^\\]+\\": the service account authentication returns an error: /,
    );
    // Nothing was served: still not ready once the refusal was seen.
    expect((await onePod('default', 'app=forged'))?.ready).toBe('1/2');
  });
});

/** Marks every object so that afterAll deletes exactly what the tests made. */
function labelled(yaml: string): string {
  return objects(yaml)
    .map((d) => {
      d.metadata = {
        ...d.metadata,
        labels: { ...d.metadata?.labels, 'mock-istiod-test': 'cluster' },
      };
      return JSON.stringify(d);
    })
    .join('\n---\n');
}

interface RpcLine {
  ok: boolean;
  reply?: string;
}

describe('proxyless gRPC pods of the real cluster, served by the mock', () => {
  it('a grpc-go client reaches its grpc-go server through the mock, both injected with the grpc-agent template', async () => {
    const example = readFileSync(join(REPO, 'examples/cluster/echo-grpc.yaml'), 'utf8');
    await kubectl(['apply', '-f', '-'], { input: labelled(await injected(example)) });
    const echo = await readyPod('echo', '2/2');
    const client = await readyPod('echo-client', '2/2');
    // What istiod's gRPC generator answers the echo pod, asked with the objects as the
    // cluster has them (the Service, the running pod, the EndpointSlice Kubernetes made), as
    // docs/proxyless.md does it, served to the grpc nodes beside the lab.
    await waitFor(
      async () =>
        (
          await kubectl([
            ...['-n', 'default', 'get', 'endpointslices'],
            ...['-l', 'kubernetes.io/service-name=echo', '-o', 'yaml'],
          ])
        ).includes(echo.name),
      { timeoutMs: 30_000, intervalMs: 500, description: "echo's EndpointSlice" },
    );
    const inputs: string[] = [];
    for (const [name, args] of [
      ['echo-service.yaml', ['service', 'echo']],
      ['echo-pods.yaml', ['pods', '-l', 'app=echo']],
      ['echo-endpoints.yaml', ['endpointslices', '-l', 'kubernetes.io/service-name=echo']],
    ] as const) {
      inputs.push(join(work, name));
      writeFileSync(
        join(work, name),
        await kubectl(['-n', 'default', 'get', ...args, '-o', 'yaml']),
      );
    }
    const generated = join(work, 'echo-grpc.json');
    await mockCli(['generate', ...inputs, '-o', generated]);
    const grpc = (JSON.parse(readFileSync(generated, 'utf8')) as { resources: unknown[] })
      .resources;
    await control.setResources({
      sets: [
        { name: 'grpc', match: { metadata: { GENERATOR: 'grpc' } }, resources: grpc },
        { name: 'default', resources: makeLabResources({ listenerAddress: '0.0.0.0' }) },
      ],
    });
    let said = '';
    const replies = await waitFor(
      async () => {
        said = await kubectl([
          ...['-n', 'default', 'exec', client.name, '-c', 'app', '--'],
          ...['grpc-xds-go', 'client', '-target', 'xds:///echo.default.svc.cluster.local:7070'],
          ...['-n', '3', '-deadline', '5s'],
        ]).catch((err: Error) => err.message);
        const lines = said
          .trim()
          .split('\n')
          .map((line) => (line.startsWith('{') ? (JSON.parse(line) as RpcLine) : { ok: false }));
        return lines.every((l) => l.ok) ? lines.map((l) => l.reply) : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 2_000, description: 'the client to reach echo over xDS' },
    ).catch(async (err: Error) => {
      const streams = (await control.state()).streams.map(
        (st) =>
          `${st.nodeId}: ${st.types.map((t) => `${t.typeUrl.split('.').pop()} ${JSON.stringify(t.names)} sent=${t.sent} acked=${t.acked}${t.nack ? ` NACK ${t.nack.message}` : ''}`).join('; ')}`,
      );
      throw new Error(
        `${err.message}\nthe client said: ${said}\nthe mock's streams:\n${streams.join('\n')}`,
      );
    });
    expect(replies).toEqual([
      'echo:rpc-0 from plaintext',
      'echo:rpc-1 from plaintext',
      'echo:rpc-2 from plaintext',
    ]);
    // Both pods' agents relayed their applications' streams to the mock, which journaled
    // each application's ACK of its listeners; the server's stream, still open, watches its
    // own listener by the address it serves on, as istiod names it.
    for (const pod of [echo.name, client.name]) {
      const acks = await control.journal({ node: `*~${pod}.*`, type: 'LDS', kind: ['ack'] });
      expect(acks.length, `${pod}'s LDS ACKs`).toBeGreaterThan(0);
    }
    const server = (await control.state()).streams.find((st) =>
      st.nodeId.includes(`~${echo.name}.`),
    );
    expect(server?.types.find((t) => t.typeUrl.endsWith('Listener'))?.names).toEqual([
      'xds.istio.io/grpc/lds/inbound/[::]:7070',
    ]);
  });
});

describe("the relay in front of the mesh's istiod, for one pod (deploy/relay)", () => {
  let relay: MockIstiodControl;

  it("the pod its proxy.istio.io/config redirects runs istiod's configuration through the relay; the others keep their control plane", async () => {
    // The mesh's CA as istiod's plug-in CA reads it: here the mock's own root.
    const root = join(work, 'istiod-certs', 'root-cert.pem');
    const key = join(work, 'istiod-certs', 'ca-key.pem');
    await kubectl([
      ...['-n', 'istio-system', 'create', 'secret', 'generic', 'cacerts'],
      `--from-file=ca-cert.pem=${root}`,
      `--from-file=ca-key.pem=${key}`,
      `--from-file=root-cert.pem=${root}`,
      `--from-file=cert-chain.pem=${root}`,
    ]);
    await kubectl(['apply', '-f', '-'], { input: istiodRefManifests(imported(images.istiodRef)) });
    await kubectl(['apply', '-f', '-'], { input: await relayManifests(imported(images.mock)) });
    for (const deployment of ['istiod-ref', 'mock-istiod-relay']) {
      await kubectl(
        ['-n', 'istio-system', 'rollout', 'status', `deploy/${deployment}`, '--timeout=180s'],
        { timeoutMs: 200_000 },
      );
    }
    const relayPod = await onePod('istio-system', 'app.kubernetes.io/name=mock-istiod-relay');
    if (relayPod === undefined) throw new Error('no mock-istiod-relay pod after the rollout');
    const ip = await podField('istio-system', relayPod.name, '{.status.podIP}');
    relay = await connectMockIstiod(`http://${ip}:15014`, { token: controlToken });

    await kubectl(['apply', '-f', '-'], { input: labelled(await injected(relayedManifests())) });
    const pod = await readyPod('relayed', '2/2');
    // istiod's configuration: a Service only istiod-ref knows.
    expect(await sidecarAdmin('default', pod.name, '/config_dump')).toContain(MESH_ONLY_CLUSTER);
    const relayed = (await relay.state()).streams.filter((st) => st.nodeId.includes('~relayed-'));
    expect(relayed.map((st) => st.upstream?.connected)).toEqual([true]);
    expect(relayed[0]?.upstream?.address).toBe(ISTIOD_REF_ADDRESS);
    const relayedLds = await relay.journal({
      node: '*~relayed-*',
      type: 'LDS',
      kind: ['response'],
    });
    expect(relayedLds.map((e) => e.relayed)).toContain('istiod');
    // Every other pod stays with the mesh's control plane: here the mock as istiod.
    const mesh = (await control.state()).streams.map((st) => st.nodeId);
    expect(mesh.some((id) => id.includes('~relayed-'))).toBe(false);
    expect(mesh.some((id) => id.includes('~orders-'))).toBe(true);
  });

  it("withheld by the relay: a new relayed pod stays at 1/2; released, 2/2 on istiod's configuration", async () => {
    await relay.withhold({});
    await kubectl(['-n', 'default', 'delete', 'pod', '-l', 'app=relayed', '--wait=false']);
    const held = await waitFor(
      async () => {
        const pods = await getPods('default', 'app=relayed');
        return pods.length === 1 && pods[0]?.status === 'Running' && pods[0].ready === '1/2'
          ? pods[0]
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, description: 'a new relayed pod Running at 1/2' },
    );
    await relay.release({});
    await readyPod('relayed', '2/2');
    expect(await sidecarAdmin('default', held.name, '/config_dump')).toContain(MESH_ONLY_CLUSTER);
  });
});
