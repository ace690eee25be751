/**
 * Step (f) of the classroom demo, the seed's third field symptom: two clusters whose sidecars
 * both leave `CLUSTER_ID` at its default get each other's configuration. Two real Envoys (the
 * frontend's sidecar in east and in west) connect to the mock with the same key; the east one
 * routes to west's orders, which real traffic shows, and the mock's collision warning names
 * both. Then each cluster gets its own name (`ISTIO_META_CLUSTER_ID`), and traffic from east
 * reaches east's orders. Everything the step starts, it stops before returning.
 */
import { startLabUpstream, type LabUpstream } from './lab-upstream.js';
import { waitFor } from '../src/util/wait.js';
import {
  CLUSTERS,
  clusterSets,
  DEFAULT_CLUSTER_ID,
  startClusterSidecar,
  type ClusterName,
  type ClusterSidecar,
  type MockWarning,
} from './demo-clusters.js';
import { CLUSTERS_TEXT } from './demo-clusters-messages.js';
import { showCurl, type DemoContext, type Evidence } from './demo-steps.js';
import type { CurlResult } from './demo-narrator.js';

/** The mock's collision warning starts so (src/app/collisions.ts). */
const COLLISION = 'proxies collide on ';

type PerCluster<T> = Record<ClusterName, T>;

export async function stepMixedClusters(c: DemoContext): Promise<Evidence> {
  const t = CLUSTERS_TEXT[c.lang];
  const upstreams: LabUpstream[] = [];
  const sidecars: ClusterSidecar[] = [];
  try {
    const ports = { west: c.ports.westOrders, east: c.ports.eastOrders };
    for (const cluster of CLUSTERS) {
      upstreams.push(await startLabUpstream({ mode: 'ok', port: ports[cluster] }));
    }
    const [west, east] = upstreams.map((u) => u.port) as [number, number];
    const orders = { west, east };
    c.say.text(t.setup(orders));
    c.say.text(t.sameKey);
    const shared = { west: DEFAULT_CLUSTER_ID, east: DEFAULT_CLUSTER_ID };
    const mixed = await run(c, sidecars, shared, orders);
    c.say.look(t.lookMixed(orders));
    c.say.text(t.fix);
    await stopAll(sidecars);
    const separated = await run(c, sidecars, { west: 'west', east: 'east' }, orders);
    c.say.look(t.lookSeparated(orders));
    return { orders, mixed, separated };
  } finally {
    await stopAll(sidecars);
    await Promise.all(upstreams.map((u) => u.close().catch(() => undefined)));
  }
}

/** Stops the sidecars (in parallel: they are independent) and empties the list. */
async function stopAll(sidecars: ClusterSidecar[]): Promise<void> {
  await Promise.all(sidecars.splice(0).map((s) => s.envoy.stop().catch(() => undefined)));
}

/**
 * One round: the mock's sets filed under `keys`, the two sidecars started with those keys as
 * their `CLUSTER_ID` (west first, then east), then what the mock sees, the warnings it logged,
 * and a request from each frontend to orders.
 */
async function run(
  c: DemoContext,
  started: ClusterSidecar[],
  keys: PerCluster<string>,
  orders: PerCluster<number>,
) {
  const t = CLUSTERS_TEXT[c.lang];
  // A refusal throws CONTROL_REFUSED with every problem.
  await c.istiod.control.setResources({ sets: clusterSets(c.resources, keys, orders) });
  const warningsBefore = c.mockWarnings.length;
  const sidecars = {} as PerCluster<ClusterSidecar>;
  for (const cluster of CLUSTERS) {
    sidecars[cluster] = await startClusterSidecar(c.istiod, cluster, keys[cluster]);
    started.push(sidecars[cluster]);
  }
  c.say.text(t.started);
  const proxies = await showProxies(c);
  const collisions = await collisionsSince(c, warningsBefore, keys.east === keys.west);
  for (const warning of collisions) {
    c.say.log(
      `mock istiod: ${warning.msg} ${JSON.stringify({ connections: warning['connections'] })}`,
    );
  }
  const traffic = {} as PerCluster<CurlResult>;
  for (const cluster of ['east', 'west'] as const) {
    const port = sidecars[cluster].outboundPort;
    c.say.text(t.through({ cluster, port }));
    traffic[cluster] = await showCurl(c, `http://127.0.0.1:${port}/orders`);
  }
  return { proxies, collisions, traffic };
}

/** `/debug/syncz` as a student would read it: each proxy's ID and CLUSTER_ID. */
async function showProxies(c: DemoContext): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${c.ports.control}/debug/syncz`, {
    signal: AbortSignal.timeout(5_000),
  });
  const syncz = (await response.json()) as { proxy?: string; cluster_id?: string }[];
  const lines = syncz.map((entry) => `${entry.proxy} ${entry.cluster_id}`).sort();
  c.say.command(
    `curl -s localhost:${c.ports.control}/debug/syncz | jq -r '.[] | "\\(.proxy) \\(.cluster_id)"'`,
    lines,
  );
  return lines;
}

/**
 * The collision warnings logged since `from`. When a collision is expected, waits for it (the
 * mock logs it as the second stream opens, before either Envoy is LIVE, so it is there).
 */
async function collisionsSince(
  c: DemoContext,
  from: number,
  expected: boolean,
): Promise<MockWarning[]> {
  const found = () => c.mockWarnings.slice(from).filter((w) => w.msg.startsWith(COLLISION));
  if (expected) {
    await waitFor(() => found().length > 0, {
      timeoutMs: 5_000,
      description: "the mock's collision warning",
    });
  }
  return found();
}
