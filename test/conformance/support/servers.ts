/**
 * The two servers of the differential suite: istiod's own (istiod-ref), and the mock given
 * the very resources istiod generated for the suite's pod, so that names and counts match.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockIstiod, type TestMockIstiod } from '../../../src/testing/start.js';
import type { MockIstiodOptions } from '../../../src/app/options.js';
import { emptyReport } from '../../../src/import/report.js';
import { pruneUnknownExtensions } from '../../../src/import/rewrite-extensions.js';
import {
  askIstiod,
  askIstiodGrpc,
  podNode,
  type IstiodAnswer,
} from '../../../src/generate/ask-istiod.js';
import type { ServerUnderTest } from './exchange.js';
import { prepareSuiteTls } from './identity.js';
import { startReference, type ReferenceServer } from '../../../src/generate/reference-server.js';

/** A pod istiod knows (in its Kubernetes objects), for one case to speak for. */
export interface Pod {
  name: string;
  ip: string;
}

/**
 * The listeners a proxyless gRPC client or server of the suite asks for by name: the
 * `orders` Service as a client dials it (its FQDN, and two short names istiod resolves), and
 * the server listeners of port 8101 on IPv4 and IPv6.
 */
export const GRPC_LISTENERS = [
  'orders.default.svc.cluster.local:8101',
  'orders:8101',
  'orders.default:8101',
  'xds.istio.io/grpc/lds/inbound/0.0.0.0:8101',
  'xds.istio.io/grpc/lds/inbound/[::]:8101',
] as const;

/** The pod the mock's resources are generated for. */
const MODEL_POD: Pod = { name: 'orders-1', ip: '10.1.0.7' };

/** The n-th case's pod (n from 1): `c<n>`, at 10.2.x.y. */
export function casePod(n: number): Pod {
  return { name: `c${n}`, ip: `10.2.${Math.floor(n / 250)}.${(n % 250) + 2}` };
}

/**
 * istiod's Kubernetes objects: the lab's `orders` Service on 8101 and a ready pod behind it
 * for each case, each with its own name and IP.
 */
export function kubeObjects(pods: readonly Pod[]): string {
  const service = [
    'apiVersion: v1',
    'kind: Service',
    'metadata: {name: orders, namespace: default}',
    'spec:',
    '  selector: {app: orders}',
    '  ports: [{name: http, port: 8101, targetPort: 8101}]',
  ].join('\n');
  const pod = (p: Pod) =>
    [
      'apiVersion: v1',
      'kind: Pod',
      `metadata: {name: ${p.name}, namespace: default, labels: {app: orders}}`,
      'spec:',
      '  serviceAccountName: orders',
      '  containers: [{name: app, image: orders, ports: [{containerPort: 8101}]}]',
      'status:',
      `  podIP: ${p.ip}`,
      `  podIPs: [{ip: ${p.ip}}]`,
      '  phase: Running',
      '  conditions: [{type: Ready, status: "True"}]',
    ].join('\n');
  return [service, pod(MODEL_POD), ...pods.map(pod)].join('\n---\n') + '\n';
}

export interface Servers {
  istiod: ServerUnderTest & { reference: ReferenceServer };
  mock: ServerUnderTest & { mock: TestMockIstiod };
  /** The resources the mock was given, as istiod generated them. */
  resources: unknown[];
  close(): Promise<void>;
}

export async function startServers(
  pods: readonly Pod[],
  mockOptions: Partial<MockIstiodOptions> = {},
): Promise<Servers> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-conformance-'));
  const kubeFile = join(dir, 'kube.yaml');
  writeFileSync(kubeFile, kubeObjects(pods));
  const tls = await prepareSuiteTls(join(dir, 'tls'));
  const reference = await startReference({ kubeFile, tls: tls.reference });
  let mock: TestMockIstiod | undefined;
  let tlsMock: TestMockIstiod | undefined;
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    const sidecar = await generatedResources(reference.xds, 'sidecar');
    const router = await generatedResources(reference.xds, 'router');
    // Clusters only: a waypoint's listeners use matchers the mock's protos do not have.
    const waypoint = await generatedResources(reference.xds, 'waypoint', true);
    // What istiod's gRPC generator answers a proxyless pod asking for the suite's names.
    const node = podNode({ ...MODEL_POD, namespace: 'default' });
    const grpc = loadable(await askIstiodGrpc(reference.xds, node, GRPC_LISTENERS));
    const resources = sidecar;
    const mockLog: string[] = [];
    const options: Partial<MockIstiodOptions> = {
      logger: collectingLogger(mockLog),
      ...mockOptions,
      resources: [
        { name: 'router', match: { nodeId: 'router~*' }, resources: router },
        { name: 'waypoint', match: { nodeId: 'waypoint~*' }, resources: waypoint },
        { name: 'grpc', match: { metadata: { GENERATOR: 'grpc' } }, resources: grpc },
        { name: 'default', resources: sidecar },
      ],
    };
    mock = await startMockIstiod(options);
    // istiod serves plaintext (15010) and TLS (15012) from one server; the mock has one xDS
    // port, so a second mock, with the same resources and the suite's CA, is its 15012.
    tlsMock = await startMockIstiod({ ...options, control: false, tls: { dir: tls.dir } });
    const started = mock;
    const startedTls = tlsMock;
    const referenceTls = reference.tlsXds;
    if (!referenceTls) throw new Error('istiod-ref started without its TLS port');
    const control = started.addresses.control;
    if (!control) throw new Error('the mock started without its control port');
    const debugUrl = `http://${control.host}:${control.port}`;
    return {
      istiod: {
        label: 'istiod',
        xds: reference.xds,
        debugUrl: reference.debugUrl,
        tlsXds: referenceTls,
        tls,
        push: () => reference.push(),
        log: () => reference.log(),
        reference,
      },
      mock: {
        label: 'mock',
        xds: started.xdsAddress,
        tlsXds: startedTls.xdsAddress,
        tls,
        debugUrl,
        push: async () => {
          await started.control.push();
          await startedTls.control.push();
        },
        log: () => mockLog.slice(),
        mock: started,
      },
      resources,
      async close() {
        await Promise.all([reference.close(), started.close(), startedTls.close()]);
        removeDir();
      },
    };
  } catch (err) {
    await Promise.all([reference.close(), mock?.close(), tlsMock?.close()]);
    removeDir();
    throw err;
  }
}

const LOG_LINES_KEPT = 20_000;

/** A pino logger at info level whose lines' messages are kept in `lines`. */
function collectingLogger(lines: string[]): pino.Logger {
  return pino(
    { level: 'info' },
    {
      write(line: string) {
        const parsed = JSON.parse(line) as { msg?: unknown };
        if (typeof parsed.msg === 'string') lines.push(parsed.msg);
        if (lines.length > LOG_LINES_KEPT) lines.splice(0, lines.length - LOG_LINES_KEPT);
      },
    },
  );
}

/**
 * What istiod sends the suite's pod: every cluster and listener, the endpoints of every EDS
 * cluster and every route configuration a listener names, as canonical JSON.
 */
async function generatedResources(
  xds: string,
  type: string,
  clustersOnly = false,
): Promise<unknown[]> {
  const node = podNode({ ...MODEL_POD, namespace: 'default' }, type);
  return loadable(await askIstiod(xds, node, clustersOnly));
}

/** istiod's answer as the mock can load it. */
function loadable(answer: IstiodAnswer): unknown[] {
  const all = [...answer.clusters, ...answer.endpoints, ...answer.listeners, ...answer.routes];
  for (const json of all) {
    const typeUrl = String(json['@type']);
    // Istio's own filters (istio.stats, alpn, peer metadata) are not in the protos the mock
    // validates with; dropping them changes no name and no count.
    const problems = pruneUnknownExtensions(json, typeUrl, true, emptyReport());
    if (problems.length > 0)
      throw new Error(`cannot load istiod's ${typeUrl}: ${JSON.stringify(problems)}`);
  }
  return all;
}
