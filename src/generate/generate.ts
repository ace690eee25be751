/**
 * `generate`: what istiod itself sends a pod's sidecar, as a resource set the mock serves.
 * Kubernetes YAML and Istio configs go to istiod's own xDS server (istiod-ref,
 * reference-server.ts); it is asked over ADS as the pod's sidecar would ask
 * (ask-istiod.ts); the answer goes through the import's rewrites and validation
 * (import/import-dump.ts), so that `--loopback-listeners`, `--sds plaintext` and the rest
 * make it run on a laptop. Istio's own filters are always dropped: the Envoy here does not
 * have them, and istiod always sends them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DumpContents, DumpedResource } from '../import/dump-sections.js';
import { importContents, type ImportedDump, type ImportOptions } from '../import/import-dump.js';
import { MockIstiodError } from '../util/errors.js';
import type { Problem, Result } from '../util/problems.js';
import { GRPC_SERVER_LISTENER_PREFIX } from '../core/grpc-names.js';
import {
  askIstiod,
  askIstiodGrpc,
  podNode,
  type AskNode,
  type IstiodAnswer,
} from './ask-istiod.js';
import { parseMesh, readInput, stringifyMesh, toYaml, type InputPod } from './kube-input.js';
import { startReference } from './reference-server.js';

export const OUTBOUND_TRAFFIC_POLICIES = ['ALLOW_ANY', 'REGISTRY_ONLY'] as const;
export type OutboundTrafficPolicy = (typeof OUTBOUND_TRAFFIC_POLICIES)[number];

export interface GenerateOptions {
  /** YAML files: Kubernetes objects, Istio configs, the `istio` ConfigMap. */
  files: readonly string[];
  /** The pod to ask for (its name); default the first Pod or Deployment. */
  pod?: string;
  /** The node id to ask with; default the sidecar id pilot-agent builds for the pod. */
  nodeId?: string;
  /** A MeshConfig file (YAML), applied over istiod's defaults; wins over the ConfigMap. */
  meshFile?: string;
  /** `outboundTrafficPolicy.mode` of the mesh; wins over both. */
  outboundTrafficPolicy?: OutboundTrafficPolicy;
  /**
   * Ask as the pod's proxyless gRPC application would (`GENERATOR: grpc`), not as its
   * sidecar. Default: when the pod asks for Istio's `grpc-agent` injection template.
   */
  proxyless?: boolean;
  /** The import's rewrites (docs/import.md); unknown extensions are always dropped. */
  rewrites?: Partial<ImportOptions>;
  env?: NodeJS.ProcessEnv;
}

export interface Generated {
  pod: InputPod;
  node: AskNode;
  /** Asked as a proxyless gRPC application (istiod's gRPC generator answered). */
  proxyless: boolean;
  /** How many of each type istiod sent, before any rewrite. */
  sent: Record<'CDS' | 'EDS' | 'LDS' | 'RDS', number>;
  imported: ImportedDump;
}

/**
 * Starts istiod-ref on the inputs, asks it for the pod, stops it. Bad input and resources
 * that do not validate throw `INVALID_RESOURCES` with every problem; a missing istiod-ref
 * throws `ISTIO_NOT_FOUND` naming `npm run install-istio`.
 */
export async function generateForPod(options: GenerateOptions): Promise<Generated> {
  const input = orThrow('cannot read the input', readInput(options.files));
  const pod = choosePod(input.pods, options.pod);
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-generate-'));
  try {
    const kubeFile = join(dir, 'kube.yaml');
    writeFileSync(kubeFile, toYaml(input.kube));
    const configFile = input.config.length > 0 ? join(dir, 'config.yaml') : undefined;
    if (configFile) writeFileSync(configFile, toYaml(input.config));
    const mesh = meshText(input.mesh, options);
    const meshFile = mesh !== undefined ? join(dir, 'mesh.yaml') : undefined;
    if (meshFile) writeFileSync(meshFile, mesh ?? '');
    const reference = await startReference({ kubeFile, configFile, meshFile }, options.env).catch(
      (err: unknown) => {
        if (err instanceof MockIstiodError) throw err;
        const message = err instanceof Error ? err.message : String(err);
        throw refused('istiod did not accept the input', [{ path: '', message }]);
      },
    );
    const node = nodeFor(pod, options.nodeId);
    const proxyless = options.proxyless ?? isGrpcAgentPod(pod);
    let answer: IstiodAnswer;
    try {
      const asked = proxyless
        ? askIstiodGrpc(reference.xds, node, serverListenerNames(pod))
        : askIstiod(reference.xds, node);
      // istiod's reason is in the stream's status (e.g. a node id it cannot parse).
      answer = await asked.catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        throw refused(`istiod did not answer node ${node.id}`, [{ path: '--node', message }]);
      });
    } finally {
      await reference.close();
    }
    const sent = {
      CDS: answer.clusters.length,
      EDS: answer.endpoints.length,
      LDS: answer.listeners.length,
      RDS: answer.routes.length,
    };
    const rewrites = { ...options.rewrites, dropUnknownExtensions: true };
    const imported = orThrow(
      'cannot serve what istiod sent',
      importContents(contentsOf(answer), rewrites),
    );
    return { pod, node, proxyless, sent, imported };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function choosePod(pods: readonly InputPod[], name: string | undefined): InputPod {
  const pod = name === undefined ? pods[0] : pods.find((p) => p.name === name);
  if (pod) return pod;
  const known = pods.map((p) => p.name).join(', ');
  throw refused('no such pod', [
    { path: '--pod', message: `no pod ${name}; the input has ${known}` },
  ]);
}

/** A pod of Istio's `grpc-agent` template (`inject.istio.io/templates: grpc-agent`). */
export function isGrpcAgentPod(pod: InputPod): boolean {
  const templates = pod.annotations['inject.istio.io/templates'] ?? '';
  return templates.split(',').some((t) => t.trim() === 'grpc-agent');
}

/** The listeners a gRPC server of the pod asks for: each container port, IPv4 and IPv6. */
function serverListenerNames(pod: InputPod): string[] {
  return pod.ports.flatMap((port) => [
    `${GRPC_SERVER_LISTENER_PREFIX}0.0.0.0:${port}`,
    `${GRPC_SERVER_LISTENER_PREFIX}[::]:${port}`,
  ]);
}

function nodeFor(pod: InputPod, nodeId: string | undefined): AskNode {
  const node = podNode(pod);
  return nodeId === undefined ? node : { ...node, id: nodeId };
}

/** The MeshConfig text istiod-ref is given: the file or ConfigMap, the policy flag over it. */
function meshText(fromInput: string | undefined, options: GenerateOptions): string | undefined {
  const text = options.meshFile !== undefined ? readMesh(options.meshFile) : fromInput;
  const policy = options.outboundTrafficPolicy;
  if (policy === undefined) return text;
  const source = options.meshFile ?? 'the istio ConfigMap';
  const mesh = orThrow('cannot read the mesh config', parseMesh(text ?? '', source));
  return stringifyMesh({ ...mesh, outboundTrafficPolicy: { mode: policy } });
}

function readMesh(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw refused('cannot read the mesh config', [{ path, message: `cannot read: ${reason}` }]);
  }
}

/** What istiod sent, as the import reads a dump's sections; origins name each resource. */
function contentsOf(answer: IstiodAnswer): DumpContents {
  const at =
    (kind: string) =>
    (resource: Record<string, unknown>): DumpedResource => ({
      origin: `istiod.${kind}[${JSON.stringify(String(resource['name'] ?? resource['cluster_name']))}]`,
      resource,
    });
  return {
    resources: [
      ...answer.clusters.map(at('clusters')),
      ...answer.listeners.map(at('listeners')),
      ...answer.routes.map(at('routes')),
    ],
    endpoints: answer.endpoints.map(at('endpoints')),
    versions: {},
    notImported: [],
    inFlight: [],
  };
}

function orThrow<T>(what: string, result: Result<T>): T {
  if (result.ok) return result.value;
  throw refused(what, result.problems);
}

function refused(what: string, problems: Problem[]): MockIstiodError<'INVALID_RESOURCES'> {
  const list = problems.map((p) => `\n  ${p.path ? `${p.path}: ` : ''}${p.message}`).join('');
  return new MockIstiodError('INVALID_RESOURCES', `${what}:${list}`, { problems });
}
