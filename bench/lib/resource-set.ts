/**
 * The resource set both servers serve: the sidecar lab (2 clusters + 2 listeners), grown to a
 * given number of clusters with Istio-shaped outbound clusters, written once as canonical
 * proto3 JSON so that the mock and the Go peer read the very same resources.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { makeLabResources, type LabOptions } from '../../src/resources/lab.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';

export interface BenchSetOptions {
  /** Total clusters (at least the lab's 2): the rest are `outbound|8080||svc-<i>…` clusters. */
  clusters: number;
  /** The lab's listener and app ports (the Envoy scenario needs free ones). */
  lab?: Partial<LabOptions>;
}

/** Istio's name for an outbound cluster: `outbound|<port>||<host>`. */
function outboundName(i: number): string {
  return `outbound|8080||svc-${i}.bench.svc.cluster.local`;
}

export function makeBenchResources(options: BenchSetOptions): Record<string, unknown>[] {
  const lab = makeLabResources(options.lab) as Record<string, unknown>[];
  const labClusters = lab.filter((r) => r['@type'] === CLUSTER_TYPE).length;
  const extra = Math.max(0, options.clusters - labClusters);
  const outbound = Array.from({ length: extra }, (_, i) =>
    // A STATIC cluster with one endpoint on loopback: the size of an EDS cluster plus its
    // assignment, and nothing a real Envoy would try to reach unless sent traffic.
    makeStaticCluster({
      name: outboundName(i),
      endpoints: [{ address: '127.0.0.1', port: 20_000 + (i % 40_000) }],
      connectTimeout: '10s',
    }),
  );
  const clusters = lab.filter((r) => r['@type'] === CLUSTER_TYPE);
  const others = lab.filter((r) => r['@type'] !== CLUSTER_TYPE);
  return [...clusters, ...outbound, ...others];
}

/** Writes the set to `<dir>/resources-<clusters>.json` and returns the path. */
export function writeBenchResources(dir: string, options: BenchSetOptions): string {
  const path = join(dir, `resources-${options.clusters}.json`);
  writeFileSync(path, JSON.stringify(makeBenchResources(options)));
  return path;
}

/**
 * The change a push makes, the same in both servers: the first cluster's `connect_timeout`
 * becomes 10 s plus `push` milliseconds. Returns a new array; the input is not modified.
 */
export function changeOneCluster(
  resources: readonly Record<string, unknown>[],
  push: number,
): Record<string, unknown>[] {
  const index = resources.findIndex((r) => r['@type'] === CLUSTER_TYPE);
  if (index < 0) throw new Error('the resource set has no cluster to change');
  const next = [...resources];
  next[index] = { ...resources[index], connect_timeout: `${(10 + push / 1000).toFixed(3)}s` };
  return next;
}
