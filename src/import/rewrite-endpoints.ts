/**
 * Endpoint addresses → addresses on this machine: every one to `--upstream`, or each through
 * a map (`--upstream-map`) keyed by cluster name, `address:port` or `address`. Endpoints are
 * found in EDS assignments and in clusters' inline `load_assignment`.
 */
import { objectsIn } from '../util/guards.js';
import { child, formatHostPort, type HostPort, type Json } from './json-walk.js';
import type { ImportReport } from './report.js';

export interface EndpointRewrite {
  /** Every endpoint to this address. */
  upstream?: HostPort;
  /** Endpoints by cluster name, `address:port` or `address`; the map wins over `upstream`. */
  map?: ReadonlyMap<string, HostPort>;
}

export function wantsEndpointRewrite(rewrite: EndpointRewrite): boolean {
  return rewrite.upstream !== undefined || (rewrite.map?.size ?? 0) > 0;
}

/** Rewrites the socket addresses of a `ClusterLoadAssignment` (at `path`) in place. */
export function rewriteAssignment(
  assignment: Json,
  clusterName: string,
  path: string,
  rewrite: EndpointRewrite,
  report: ImportReport,
): void {
  objectsIn(assignment.endpoints).forEach((locality, i) => {
    // Envoy prints an unset locality weight as 0, which it would refuse to be sent (gte 1).
    if (locality.load_balancing_weight === 0) delete locality.load_balancing_weight;
    objectsIn(locality.lb_endpoints).forEach((lb, j) => {
      const socket = child(child(child(lb, 'endpoint') ?? {}, 'address') ?? {}, 'socket_address');
      if (!socket || !wantsEndpointRewrite(rewrite)) return;
      const at = `${path}.endpoints[${i}].lb_endpoints[${j}].endpoint.address.socket_address`;
      const from = { address: String(socket.address), port: Number(socket.port_value ?? 0) };
      const to =
        rewrite.map?.get(clusterName) ??
        rewrite.map?.get(formatHostPort(from)) ??
        rewrite.map?.get(from.address) ??
        rewrite.upstream;
      if (!to) {
        report.cannotWork.push({
          path: at,
          message: `${formatHostPort(from)} of ${clusterName}: not in the upstream map, kept (reachable from here?)`,
        });
        return;
      }
      socket.address = to.address;
      socket.port_value = to.port;
      report.rewrites.push({
        path: at,
        message: `endpoint of ${clusterName} ${formatHostPort(from)} → ${formatHostPort(to)}`,
      });
    });
  });
}
