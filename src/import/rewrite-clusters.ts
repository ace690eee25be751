/**
 * Clusters: inline endpoints through the endpoint rewrite, and original-destination clusters
 * (Istio's PassthroughCluster, InboundPassthroughCluster…), which send a connection where it
 * was going before iptables redirected it. With no iptables there is no such destination: the
 * cluster can be turned into a STATIC one at the upstream, or kept and reported.
 */
import { child, formatHostPort, type HostPort, type Json } from './json-walk.js';
import { rewriteAssignment, type EndpointRewrite } from './rewrite-endpoints.js';
import type { ImportReport } from './report.js';

export interface ClusterRewrite extends EndpointRewrite {
  /** ORIGINAL_DST clusters → STATIC clusters at `upstream`. */
  originalDstToUpstream: boolean;
}

export function rewriteCluster(
  cluster: Json,
  path: string,
  rewrite: ClusterRewrite,
  report: ImportReport,
): void {
  const name = String(cluster.name);
  const assignment = child(cluster, 'load_assignment');
  if (assignment) rewriteAssignment(assignment, name, `${path}.load_assignment`, rewrite, report);
  if (cluster.type === 'ORIGINAL_DST') rewriteOriginalDst(cluster, name, path, rewrite, report);
}

function rewriteOriginalDst(
  cluster: Json,
  name: string,
  path: string,
  rewrite: ClusterRewrite,
  report: ImportReport,
): void {
  const upstream: HostPort | undefined = rewrite.map?.get(name) ?? rewrite.upstream;
  if (!rewrite.originalDstToUpstream || !upstream) {
    report.cannotWork.push({
      path: `${path}.type`,
      message: `${name} is ORIGINAL_DST: it forwards to a connection's destination before iptables redirected it; with no iptables it has nowhere to send (--original-dst-to-upstream with --upstream makes it STATIC)`,
    });
    return;
  }
  cluster.type = 'STATIC';
  delete cluster.lb_policy;
  delete cluster.original_dst_lb_config;
  cluster.load_assignment = {
    cluster_name: name,
    endpoints: [
      {
        lb_endpoints: [
          {
            endpoint: {
              address: { socket_address: { address: upstream.address, port_value: upstream.port } },
            },
          },
        ],
      },
    ],
  };
  report.rewrites.push({
    path: `${path}.type`,
    message: `${name}: ORIGINAL_DST → STATIC at ${formatHostPort(upstream)}`,
  });
}
