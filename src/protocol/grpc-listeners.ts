/**
 * What istiod's gRPC generator answers a proxyless client that asks for listeners without
 * names: every service's client listener, named `<FQDN>:<port>` (its `buildOutboundListeners`
 * over every service the node sees); no server listener, and none of the short names
 * (`orders:8101`) a client may have asked for, which istiod names as they were asked.
 */
import { GRPC_SERVER_LISTENER_PREFIX } from '../core/grpc-names.js';

/**
 * The names of a set's listeners that a no-names request is answered with: not a server's
 * (`xds.istio.io/grpc/lds/inbound/…`), and not a short form of another's host on the same
 * port (`orders:8101` beside `orders.default.svc.cluster.local:8101`).
 */
export function grpcWildcardListeners(names: Iterable<string>): string[] {
  const clients = [...names].filter((name) => !name.startsWith(GRPC_SERVER_LISTENER_PREFIX));
  const byPort = new Map<string, string[]>();
  for (const name of clients) {
    const split = hostPort(name);
    if (!split) continue;
    byPort.set(split.port, [...(byPort.get(split.port) ?? []), split.host]);
  }
  return clients
    .filter((name) => {
      const split = hostPort(name);
      if (!split) return true;
      const hosts = byPort.get(split.port) ?? [];
      return !hosts.some((other) => other.startsWith(`${split.host}.`));
    })
    .sort();
}

function hostPort(name: string): { host: string; port: string } | undefined {
  const at = name.lastIndexOf(':');
  if (at <= 0 || !/^\d+$/.test(name.slice(at + 1))) return undefined;
  return { host: name.slice(0, at), port: name.slice(at + 1) };
}
