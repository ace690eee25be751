/**
 * The YAML `generate` takes, sorted as istiod-ref wants it: Kubernetes objects (Services,
 * Pods, Deployments, …) for `-kube`, Istio configs (`*.istio.io`: Sidecar, ServiceEntry, …)
 * for `-config`, and the mesh's own config (the `istio` ConfigMap's `mesh` key, as istiod
 * reads it) for `-mesh`. istiod only builds a sidecar's configuration for a pod that runs and
 * has an IP, so a Deployment becomes one such pod, and a pod without a status gets one.
 */
import { readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import { isObject } from '../util/guards.js';
import { lazyRequire } from '../util/lazy-require.js';
import type { Problem, Result } from '../util/problems.js';

/** Loaded on first use: start-up does not pay for the YAML parser when no file is read. */
const yaml = lazyRequire<typeof Yaml>(import.meta.url, 'yaml');

type Json = Record<string, unknown>;

/** The pod istiod is asked about. */
export interface InputPod {
  name: string;
  namespace: string;
  ip: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Its containers' ports (`containerPort`), in order, each once. */
  ports: number[];
}

export interface SortedInput {
  kube: Json[];
  config: Json[];
  /** The `mesh` text of an `istio` ConfigMap, when one was given. */
  mesh: string | undefined;
  pods: InputPod[];
}

/** The first pod's IP when none is written; the next pods count up from it. */
export const FIRST_POD_IP = '10.1.0.7';

const KUBE_KINDS = new Set([
  'Service',
  'Pod',
  'Deployment',
  'Endpoints',
  'EndpointSlice',
  'Namespace',
  'ServiceAccount',
  'Node',
]);

/** Reads every document of every file, each problem at `<file>[<document>]`. */
export function readInput(files: readonly string[]): Result<SortedInput> {
  const problems: Problem[] = [];
  const out: SortedInput = { kube: [], config: [], mesh: undefined, pods: [] };
  for (const file of files) {
    let docs: Yaml.Document[];
    try {
      docs = yaml().parseAllDocuments(readFileSync(file, 'utf8'));
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? String(err);
      problems.push({ path: file, message: `cannot read: ${reason}` });
      continue;
    }
    docs.forEach((doc, i) => {
      const path = `${file}[${i}]`;
      if (doc.errors.length > 0) {
        problems.push({ path, message: `not YAML: ${doc.errors[0]?.message.split('\n')[0]}` });
        return;
      }
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) return;
      sortOne(value, path, out, problems);
    });
  }
  if (problems.length === 0 && out.pods.length === 0)
    problems.push({
      path: files.join(', '),
      message: 'expected a Pod or a Deployment: istiod generates a sidecar for a pod',
    });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

function sortOne(value: unknown, path: string, out: SortedInput, problems: Problem[]): void {
  if (!isObject(value) || typeof value.kind !== 'string' || typeof value.apiVersion !== 'string') {
    problems.push({ path, message: 'expected a Kubernetes object with apiVersion and kind' });
    return;
  }
  const { kind, apiVersion } = value;
  // What `kubectl get … -o yaml` prints for several objects: each item, as if given alone.
  if (kind === 'List' && Array.isArray(value.items)) {
    value.items.forEach((item, i) => sortOne(item, `${path}.items[${i}]`, out, problems));
    return;
  }
  const meta = isObject(value.metadata) ? value.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '') {
    problems.push({ path: `${path}.metadata.name`, message: `expected the ${kind}'s name` });
    return;
  }
  if (kind === 'ConfigMap' && meta.name === 'istio') {
    const data = isObject(value.data) ? value.data : {};
    if (typeof data.mesh !== 'string')
      problems.push({ path: `${path}.data.mesh`, message: 'expected the MeshConfig as text' });
    else out.mesh = data.mesh;
  } else if (apiVersion.split('/')[0]?.endsWith('istio.io')) out.config.push(value);
  else if (kind === 'Deployment') out.kube.push(podOf(value, path, out, problems));
  else if (kind === 'Pod') out.kube.push(withStatus(value, out));
  else if (KUBE_KINDS.has(kind)) out.kube.push(value);
  else
    problems.push({
      path: `${path}.kind`,
      message: `${kind}: expected one of ${[...KUBE_KINDS].join(', ')}, an Istio config (*.istio.io) or the istio ConfigMap`,
    });
}

/** A Deployment's template as its first pod, `<name>-0`. */
function podOf(deployment: Json, path: string, out: SortedInput, problems: Problem[]): Json {
  const meta = deployment.metadata as Json;
  const spec = isObject(deployment.spec) ? deployment.spec : {};
  const template = isObject(spec.template) ? spec.template : undefined;
  if (!template || !isObject(template.spec)) {
    problems.push({ path: `${path}.spec.template`, message: 'expected the pod template' });
    return deployment;
  }
  const templateMeta = isObject(template.metadata) ? template.metadata : {};
  const pod: Json = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...templateMeta,
      name: `${String(meta.name)}-0`,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : 'default',
    },
    spec: template.spec,
  };
  return withStatus(pod, out);
}

/** A pod as istiod needs it to build a sidecar: running, ready, with an IP. */
function withStatus(pod: Json, out: SortedInput): Json {
  const meta = pod.metadata as Json;
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : 'default';
  const status = isObject(pod.status) ? pod.status : {};
  const ip = typeof status.podIP === 'string' ? status.podIP : nextIp(out.pods.length);
  const labels = isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
  const annotations = isObject(meta.annotations)
    ? (meta.annotations as Record<string, string>)
    : {};
  out.pods.push({ name: String(meta.name), namespace, ip, labels, annotations, ports: ports(pod) });
  return {
    ...pod,
    metadata: { ...meta, namespace },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      ...status,
      podIP: ip,
      podIPs: [{ ip }],
    },
  };
}

/** The pod's container ports, in order, each once. */
function ports(pod: Json): number[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  const found = containers.flatMap((c: unknown) =>
    isObject(c) && Array.isArray(c.ports)
      ? c.ports.map((p: unknown) => (isObject(p) ? p.containerPort : undefined))
      : [],
  );
  return [...new Set(found.filter((p): p is number => Number.isInteger(p)))];
}

function nextIp(n: number): string {
  const parts = FIRST_POD_IP.split('.').map(Number);
  return `${parts[0]}.${parts[1]}.${parts[2]}.${(parts[3] ?? 0) + n}`;
}

/** The documents as one multi-document YAML text. */
export function toYaml(docs: readonly Json[]): string {
  return docs.map((d) => yaml().stringify(d, { lineWidth: 0 })).join('---\n');
}

/** A MeshConfig's YAML text as an object (an empty text is `{}`). */
export function parseMesh(text: string, path: string): Result<Json> {
  try {
    const value: unknown = yaml().parse(text);
    if (value === null || value === undefined) return { ok: true, value: {} };
    if (isObject(value)) return { ok: true, value };
  } catch (err) {
    const message = `not YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
    return { ok: false, problems: [{ path, message }] };
  }
  return { ok: false, problems: [{ path, message: 'expected a MeshConfig object' }] };
}

export function stringifyMesh(mesh: Json): string {
  return yaml().stringify(mesh, { lineWidth: 0 });
}
