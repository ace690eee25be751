/**
 * Steps the state-of-the-world cases (cases/sotw-*.ts) share: open a stream with a first
 * request, answer a response the way Envoy would (ACK or NACK), and the names they ask for.
 */
import type { Exchange, Seen, Stream } from './exchange.js';

/** The EDS cluster (and CDS cluster) istiod builds for the suite's `orders` Service. */
export const ORDERS = 'outbound|8101||orders.default.svc.cluster.local';
/** A name no cluster, endpoint set or route configuration has. */
export const NOWHERE = 'outbound|9999||nowhere.default.svc.cluster.local';
/** The route configuration the sidecar's outbound 8101 listener names. */
export const ROUTE_8101 = '8101';

/** Opens a stream whose first request (with the node) asks for `names` of `typeUrl`. */
export function open(x: Exchange, typeUrl: string, names: string[] = []): Stream {
  const s = x.sotw();
  s.send({ node: x.node(), type_url: typeUrl, resource_names: names });
  return s;
}

/** The request Envoy sends after applying `r`: its version, its nonce, and the names. */
export function ack(s: Stream, r: Seen, names: string[] = []): void {
  s.send({
    type_url: r.type,
    version_info: r.version,
    response_nonce: r.nonce,
    resource_names: names,
  });
}

/** The request Envoy sends after rejecting `r`: the version it kept, the nonce, an error. */
export function nack(
  s: Stream,
  r: Seen,
  options: { kept?: string; names?: string[]; message?: string; nonce?: string } = {},
): void {
  s.send({
    type_url: r.type,
    version_info: options.kept ?? '',
    response_nonce: options.nonce ?? r.nonce,
    resource_names: options.names ?? [],
    error_detail: { code: 13, message: options.message ?? 'probe rejects this' },
  });
}
