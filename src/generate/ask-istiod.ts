/**
 * What istiod sends one proxy, asked over ADS the way a sidecar would (state of the world):
 * every cluster and listener, then the endpoints of every EDS cluster and every route
 * configuration a listener names, each ACKed, each decoded into Envoy's proto-JSON with
 * `@type`. The conformance suite loads the mock with this; `generate` writes it to a file.
 */
import { AdsTestClient, type AdsTestStream, type ClientResponse } from '../xds/ads-client.js';
import { toJson } from '../xds/json.js';
import { envoyRoot } from '../xds/protos.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../xds/type-urls.js';

type Json = Record<string, unknown>;

/** The node a proxy presents: its id (`sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local`) and metadata. */
export interface AskNode {
  id: string;
  metadata: Record<string, unknown>;
}

export interface IstiodAnswer {
  clusters: Json[];
  endpoints: Json[];
  listeners: Json[];
  routes: Json[];
}

/** The node of a sidecar (or a router, a waypoint: `type`) for a pod, as pilot-agent builds it. */
export function podNode(
  pod: { name: string; namespace: string; ip: string; labels?: Record<string, string> },
  type = 'sidecar',
): AskNode {
  const { name, namespace, ip } = pod;
  return {
    id: `${type}~${ip}~${name}.${namespace}~${namespace}.svc.cluster.local`,
    metadata: {
      NAMESPACE: namespace,
      CLUSTER_ID: 'Kubernetes',
      INSTANCE_IPS: ip,
      ...(pod.labels && Object.keys(pod.labels).length > 0 ? { LABELS: pod.labels } : {}),
    },
  };
}

const ANSWER_TIMEOUT_MS = 10_000;

/** Asks istiod at `xds` (plaintext `host:port`) for everything it sends `node`. */
export async function askIstiod(
  xds: string,
  node: AskNode,
  clustersOnly = false,
): Promise<IstiodAnswer> {
  const client = new AdsTestClient(xds);
  try {
    const stream = client.sotw();
    const clusters = await fetchType(stream, { node, type_url: CLUSTER_TYPE, resource_names: [] });
    if (clustersOnly) {
      stream.close();
      return { clusters, endpoints: [], listeners: [], routes: [] };
    }
    const listeners = await fetchType(stream, { type_url: LISTENER_TYPE, resource_names: [] });
    const edsNames = clusters
      .filter((c) => c['type'] === 'EDS')
      .map((c) => {
        const eds = c['eds_cluster_config'] as { service_name?: string } | undefined;
        return eds?.service_name || String(c['name']);
      });
    const routeNames = [...new Set(listeners.flatMap((l) => routeConfigNames(l)))];
    const endpoints =
      edsNames.length > 0
        ? await fetchType(stream, { type_url: ENDPOINT_TYPE, resource_names: edsNames })
        : [];
    const routes =
      routeNames.length > 0
        ? await fetchType(stream, { type_url: ROUTE_TYPE, resource_names: routeNames })
        : [];
    stream.close();
    return { clusters, endpoints, listeners, routes };
  } finally {
    client.close();
  }
}

/**
 * What istiod's gRPC generator sends a proxyless client (node metadata `GENERATOR: grpc`):
 * every service's client listener (what it names when asked for none) and, for the services of
 * the pod's own namespace, under the short names istiod resolves, and the listeners in
 * `listenerNames`, as gRPC asks by name: a client's `host:port` targets (short ones too) and
 * a server's `xds.istio.io/grpc/lds/inbound/<ip>:<port>`. Then, in gRPC's order on the same
 * stream, the route configurations those listeners name, the clusters those routes name
 * (the generator builds only clusters asked by name), and their endpoints; each ACKed.
 */
export async function askIstiodGrpc(
  xds: string,
  node: AskNode,
  listenerNames: readonly string[],
): Promise<IstiodAnswer> {
  const client = new AdsTestClient(xds);
  try {
    const grpcNode = { ...node, metadata: { ...node.metadata, GENERATOR: 'grpc' } };
    // Asked without names, istiod names every service's client listener: a client may dial any.
    const every = await fetchType(client.sotw(), {
      node: grpcNode,
      type_url: LISTENER_TYPE,
      resource_names: [],
    });
    const clientNames = every.map((l) => String(l['name']));
    const names = new Set([
      ...clientNames,
      ...shortListenerNames(clientNames, node.id),
      ...listenerNames,
    ]);
    const stream = client.sotw();
    const listeners = await fetchType(stream, {
      node: grpcNode,
      type_url: LISTENER_TYPE,
      resource_names: [...names],
    });
    const routeNames = [...new Set(listeners.flatMap((l) => routeConfigNames(l)))];
    const routes = await fetchNamed(stream, ROUTE_TYPE, routeNames);
    const clusterNames = [...new Set(routes.flatMap((r) => routeClusterNames(r)))];
    const clusters = await fetchNamed(stream, CLUSTER_TYPE, clusterNames);
    const edsNames = clusters
      .filter((c) => c['type'] === 'EDS')
      .map((c) => {
        const eds = c['eds_cluster_config'] as { service_name?: string } | undefined;
        return eds?.service_name || String(c['name']);
      });
    const endpoints = await fetchNamed(stream, ENDPOINT_TYPE, edsNames);
    stream.close();
    return { clusters, endpoints, listeners, routes };
  } finally {
    client.close();
  }
}

/**
 * The short names a client in the pod's namespace may dial a service of that namespace by,
 * which istiod's gRPC generator resolves against the node's DNS domain (`tryFindFQDN`) and
 * answers with a listener of that very name: `echo:7070`, `echo.default:7070` and
 * `echo.default.svc:7070` for `echo.default.svc.cluster.local:7070`. A node id's fourth part
 * is its DNS domain (`default.svc.cluster.local`).
 */
export function shortListenerNames(fqdnNames: readonly string[], nodeId: string): string[] {
  const domain = nodeId.split('~')[3] ?? '';
  const namespace = domain.split('.')[0] ?? '';
  if (namespace === '') return [];
  return fqdnNames.flatMap((name) => {
    const colon = name.lastIndexOf(':');
    const host = name.slice(0, colon);
    const port = name.slice(colon + 1);
    const service = host.endsWith(`.${domain}`) ? host.slice(0, -domain.length - 1) : '';
    if (colon < 0 || service === '' || service.includes('.')) return [];
    return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`].map(
      (short) => `${short}:${port}`,
    );
  });
}

/** The resources of these names, or none without asking when there are no names. */
function fetchNamed(stream: AdsTestStream, typeUrl: string, names: readonly string[]) {
  if (names.length === 0) return Promise.resolve([]);
  return fetchType(stream, { type_url: typeUrl, resource_names: [...names] });
}

/** The clusters a route configuration's routes send to (`cluster`, weighted clusters). */
function routeClusterNames(route: Json): string[] {
  const hosts = (route['virtual_hosts'] ?? []) as { routes?: { route?: Json }[] }[];
  return hosts.flatMap((host) =>
    (host.routes ?? []).flatMap(({ route: action }) => {
      if (!action) return [];
      const weighted = (action['weighted_clusters'] as { clusters?: { name?: string }[] })
        ?.clusters;
      const names = (weighted ?? []).map((c) => c.name);
      return [action['cluster'], ...names].filter((n): n is string => typeof n === 'string');
    }),
  );
}

/** One request, its response decoded, and the ACK a proxy would send. */
async function fetchType(
  stream: AdsTestStream,
  request: Parameters<AdsTestStream['send']>[0],
): Promise<Json[]> {
  stream.send(request);
  const response: ClientResponse = await stream.next(ANSWER_TIMEOUT_MS);
  stream.send({
    type_url: response.type_url,
    version_info: response.version_info,
    response_nonce: response.nonce,
    resource_names: 'resource_names' in request ? request.resource_names : [],
  });
  return response.resources.map((any) => {
    const type = envoyRoot().lookupType(any.type_url.slice(any.type_url.lastIndexOf('/') + 1));
    return { '@type': any.type_url, ...(toJson(type, type.decode(any.value)) as object) };
  });
}

/** Every `rds.route_config_name` anywhere in a listener. */
function routeConfigNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(routeConfigNames);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Json;
  const own = typeof record['route_config_name'] === 'string' ? [record['route_config_name']] : [];
  return [...own, ...Object.values(record).flatMap(routeConfigNames)];
}
