/**
 * The pieces of the demo's step (f), the seed's third field symptom ("multi-cluster config gets
 * mixed"): two clusters, east and west, each running the pod `frontend-v1-0` in `default` with
 * a real Envoy as its sidecar, and an `orders` service of its own (a lab upstream). The mock
 * holds each cluster's configuration as a resource set selected by `CLUSTER_ID`, as istiod
 * files what it knows of each cluster under the cluster's ID: two clusters that leave
 * `CLUSTER_ID` at its default (`Kubernetes`) are filed under one key.
 */
import pino, { type Logger } from 'pino';
import { makeSidecarBootstrap } from '../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../src/envoy/envoy-process.js';
import { makeStaticCluster } from '../src/resources/cluster.js';
import { makeHttpListener } from '../src/resources/listener.js';
import type { EnvoyResource } from '../src/resources/types.js';
import type { ResourceSetSpec } from '../src/snapshot/validated-set.js';
import type { TestMockIstiod } from '../src/testing/start.js';
import { waitFor } from '../src/util/wait.js';

/** West first: with one key for both, the mock serves the first set that matches. */
export const CLUSTERS = ['west', 'east'] as const;
export type ClusterName = (typeof CLUSTERS)[number];

/** What `ISTIO_META_CLUSTER_ID` is when nobody sets it (istiod's default too). */
export const DEFAULT_CLUSTER_ID = 'Kubernetes';

/** The same workload runs in both clusters, as it does in a multi-cluster mesh. */
export const FRONTEND_POD = {
  podName: 'frontend-v1-0',
  namespace: 'default',
  workloadName: 'frontend-v1',
  serviceAccount: 'default',
} as const;

/** Each cluster's pod network: the pods' IPs differ, so their node ids do too. */
export const POD_IPS: Readonly<Record<ClusterName, string>> = {
  west: '10.2.0.7',
  east: '10.1.0.7',
};

/** The cluster Istio names for the orders service on port 8080. */
export const ORDERS_CLUSTER = 'outbound|8080||orders.default.svc.cluster.local';

/** The demo's first pod keeps the lab's resources, whatever its CLUSTER_ID. */
const LAB_POD_MATCH = { nodeId: 'sidecar~*~orders-v1-0.default~*' };

/**
 * What one cluster's control plane sends its frontend's sidecar: the outbound listener, to
 * orders, and orders with this cluster's endpoint. The listener asks for port 0: in a real
 * cluster every pod has its own network and its own 15001; on one machine each Envoy gets a
 * port of its own from the OS.
 */
export function clusterResources(ordersPort: number): EnvoyResource[] {
  return [
    makeHttpListener({
      name: 'virtualOutbound',
      address: '127.0.0.1',
      port: 0,
      direction: 'OUTBOUND',
      cluster: ORDERS_CLUSTER,
    }),
    makeStaticCluster({
      name: ORDERS_CLUSTER,
      endpoints: [{ address: '127.0.0.1', port: ordersPort }],
    }),
  ];
}

/**
 * The mock's sets: the lab pod's, then each cluster's configuration filed under the key its
 * install gave it (`keys`), west's first.
 */
export function clusterSets(
  lab: readonly EnvoyResource[],
  keys: Readonly<Record<ClusterName, string>>,
  ordersPorts: Readonly<Record<ClusterName, number>>,
): ResourceSetSpec[] {
  return [
    { name: 'orders-v1-0', match: LAB_POD_MATCH, resources: lab },
    ...CLUSTERS.map((cluster) => ({
      name: cluster,
      match: { metadata: { CLUSTER_ID: keys[cluster] } },
      resources: clusterResources(ordersPorts[cluster]),
    })),
  ];
}

export interface ClusterSidecar {
  cluster: ClusterName;
  clusterId: string;
  envoy: EnvoyProcess;
  /** Where its outbound listener is bound (asked for port 0). */
  outboundPort: number;
}

/**
 * Starts the frontend's sidecar of one cluster (its bootstrap as pilot-agent writes it, with
 * `ISTIO_META_CLUSTER_ID` = `clusterId`) and waits until it is LIVE with its outbound listener.
 * Against a mock serving TLS (`--real-agent`), it trusts the mock's root and sends a token.
 */
export async function startClusterSidecar(
  istiod: TestMockIstiod,
  cluster: ClusterName,
  clusterId: string,
): Promise<ClusterSidecar> {
  const { security } = istiod;
  const envoy = await startEnvoy({
    bootstrap: makeSidecarBootstrap({
      ...FRONTEND_POD,
      podIp: POD_IPS[cluster],
      clusterId,
      discoveryPort: istiod.addresses.xds.port,
      adminPort: 0,
      ...(security.tls && {
        tlsRootCertPath: security.rootCertPath ?? null,
        xdsToken: security.createToken({
          namespace: FRONTEND_POD.namespace,
          serviceAccount: FRONTEND_POD.serviceAccount,
        }).token,
      }),
    }),
    logLevel: 'warning',
  });
  try {
    await envoy.waitForLive();
    const outboundPort = await waitFor(
      async () => (await envoy.boundListeners()).find((l) => l.name === 'virtualOutbound')?.port,
      { timeoutMs: 10_000, description: `the ${cluster} sidecar's virtualOutbound to be bound` },
    );
    return { cluster, clusterId, envoy, outboundPort };
  } catch (err) {
    await envoy.stop();
    throw err;
  }
}

/** A warning the mock logged, as its JSON log line has it. */
export interface MockWarning {
  msg: string;
  [field: string]: unknown;
}

/**
 * A logger for the demo's mock that keeps its warnings (the collision warning among them), so
 * that the demo can print them as the mock logged them.
 */
export function createWarningLog(): { logger: Logger; warnings: MockWarning[] } {
  const warnings: MockWarning[] = [];
  const logger = pino(
    { level: 'warn', base: undefined, timestamp: false },
    { write: (line: string) => void warnings.push(JSON.parse(line) as MockWarning) },
  );
  return { logger, warnings };
}
