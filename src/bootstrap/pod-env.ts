/**
 * Reads a pod's identity from the environment variables pilot-agent reads (set by the
 * injected `istio-proxy` container from the pod spec via `fieldRef`):
 *
 * - `POD_NAME`, `POD_NAMESPACE`, `INSTANCE_IP`, `SERVICE_ACCOUNT` (required here);
 * - every `ISTIO_META_<KEY>=<value>` becomes node metadata `<KEY>: "<value>"` (a string, as
 *   pilot-agent passes them through); `ISTIO_META_CLUSTER_ID`, `ISTIO_META_MESH_ID` and
 *   `ISTIO_META_WORKLOAD_NAME` also fill the fields they name (`node.cluster` is
 *   `<WORKLOAD_NAME>.<namespace>`).
 */
import { isIP } from 'node:net';
import type { Problem, Result } from '../util/problems.js';
import type { JsonObject } from './proto-json.js';
import type { SidecarBootstrapOptions } from './sidecar-options.js';

export const ISTIO_META_PREFIX = 'ISTIO_META_';

/** The variables without which pilot-agent cannot name the proxy. */
export const REQUIRED_POD_ENV = [
  'POD_NAME',
  'POD_NAMESPACE',
  'INSTANCE_IP',
  'SERVICE_ACCOUNT',
] as const;

export type PodIdentity = Pick<
  SidecarBootstrapOptions,
  | 'podName'
  | 'namespace'
  | 'podIp'
  | 'serviceAccount'
  | 'workloadName'
  | 'clusterId'
  | 'meshId'
  | 'metadata'
>;

/** Every `ISTIO_META_*` variable, prefix removed, sorted by key (so output is stable). */
export function istioMetadataFromEnv(env: NodeJS.ProcessEnv): JsonObject {
  const metadata: JsonObject = {};
  const keys = Object.keys(env)
    .filter((name) => name.startsWith(ISTIO_META_PREFIX) && name.length > ISTIO_META_PREFIX.length)
    .sort();
  for (const name of keys) {
    const value = env[name];
    if (value !== undefined) metadata[name.slice(ISTIO_META_PREFIX.length)] = value;
  }
  return metadata;
}

/**
 * The pod identity from `env`, or every problem at once: the path of a problem is the
 * variable's name, so that the CLI can say exactly which one to set.
 */
export function podIdentityFromEnv(env: NodeJS.ProcessEnv): Result<PodIdentity> {
  const problems: Problem[] = [];
  const read = (name: (typeof REQUIRED_POD_ENV)[number]): string => {
    const value = env[name] ?? '';
    if (value === '') problems.push({ path: name, message: 'is not set' });
    return value;
  };
  const podName = read('POD_NAME');
  const namespace = read('POD_NAMESPACE');
  const podIp = read('INSTANCE_IP');
  const serviceAccount = read('SERVICE_ACCOUNT');
  if (podIp !== '' && isIP(podIp) === 0) {
    problems.push({ path: 'INSTANCE_IP', message: `expected an IP address, got "${podIp}"` });
  }
  for (const [name, value] of [
    ['POD_NAME', podName],
    ['POD_NAMESPACE', namespace],
  ] as const) {
    if (value.includes('~')) problems.push({ path: name, message: "must not contain '~'" });
  }
  if (problems.length > 0) return { ok: false, problems };
  const metadata = istioMetadataFromEnv(env);
  const text = (key: string) => (typeof metadata[key] === 'string' ? metadata[key] : undefined);
  const identity: PodIdentity = {
    podName,
    namespace,
    podIp,
    serviceAccount,
    workloadName: text('WORKLOAD_NAME') ?? '',
    clusterId: text('CLUSTER_ID') ?? 'Kubernetes',
    meshId: text('MESH_ID') ?? 'cluster.local',
    metadata,
  };
  return { ok: true, value: identity };
}

/**
 * One line for the CLI: missing variables first, all named (`POD_NAME and INSTANCE_IP are
 * not set …`), then any bad value.
 */
export function describePodEnvProblems(problems: readonly Problem[]): string {
  const missing = problems.filter((p) => p.message === 'is not set').map((p) => p.path);
  const other = problems.filter((p) => p.message !== 'is not set');
  const parts: string[] = [];
  if (missing.length > 0) {
    const names =
      missing.length === 1
        ? missing[0]
        : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
    parts.push(
      `environment variable${missing.length === 1 ? '' : 's'} ${names} ${missing.length === 1 ? 'is' : 'are'} not set ` +
        '(pilot-agent reads the pod identity from POD_NAME, POD_NAMESPACE, INSTANCE_IP and SERVICE_ACCOUNT)',
    );
  }
  for (const problem of other) parts.push(`${problem.path}: ${problem.message}`);
  return parts.join('; ');
}
