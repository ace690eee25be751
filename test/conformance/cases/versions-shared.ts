/**
 * Versions and nonces without a push: istiod answers every type of a stream with the version of
 * its one current push (`<RFC 3339 second>Z/<counter>`), each response's nonce is that version
 * followed by a UUID, and `control_plane` is unset.
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import type { Exchange, Seen, Stream } from '../support/exchange.js';

/** The EDS cluster and the route configuration istiod makes of the `orders` Service. */
export const ORDERS_CLUSTER = 'outbound|8101||orders.default.svc.cluster.local';
export const ORDERS_ROUTE = '8101';

/** Asks for a type in state of the world and ACKs the answer. */
export async function sotwAcked(
  s: Stream,
  request: { type_url: string; resource_names: string[]; node?: ReturnType<Exchange['node']> },
): Promise<Seen> {
  s.send(request);
  const r = await s.read();
  s.send({
    type_url: request.type_url,
    resource_names: request.resource_names,
    version_info: r.version,
    response_nonce: r.nonce,
  });
  return r;
}

/** CDS, EDS, LDS and RDS asked for and ACKed on one SotW stream, in Envoy's order. */
export async function sotwAll(x: Exchange, s: Stream): Promise<void> {
  await sotwAcked(s, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
  await sotwAcked(s, { type_url: ENDPOINT_TYPE, resource_names: [ORDERS_CLUSTER] });
  await sotwAcked(s, { type_url: LISTENER_TYPE, resource_names: [] });
  await sotwAcked(s, { type_url: ROUTE_TYPE, resource_names: [ORDERS_ROUTE] });
}

/** Subscribes a type in delta and ACKs the answer. */
export async function deltaAcked(
  s: Stream,
  request: {
    type_url: string;
    resource_names_subscribe?: string[];
    node?: ReturnType<Exchange['node']>;
  },
): Promise<Seen> {
  s.send(request);
  const r = await s.read();
  s.send({ type_url: request.type_url, response_nonce: r.nonce });
  return r;
}

/** CDS, EDS, LDS and RDS subscribed and ACKed on one delta stream. */
export async function deltaAll(x: Exchange, s: Stream): Promise<void> {
  await deltaAcked(s, { node: x.node(), type_url: CLUSTER_TYPE });
  await deltaAcked(s, { type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
  await deltaAcked(s, { type_url: LISTENER_TYPE });
  await deltaAcked(s, { type_url: ROUTE_TYPE, resource_names_subscribe: [ORDERS_ROUTE] });
}

export default cases('Versions and nonces', [
  {
    title: 'CDS, EDS, LDS and RDS of one stream share one push version; nonces are version+UUID',
    async run(x) {
      const s = x.sotw();
      await sotwAll(x, s);
      await s.silent();
    },
  },
  {
    title: 'delta: every type is answered with the same system_version, nonces version+UUID',
    async run(x) {
      const s = x.delta();
      await deltaAll(x, s);
      await s.silent();
    },
  },
  {
    title: 'a second stream opened later, with no push between, gets the same version',
    async run(x) {
      const a = x.sotw();
      await sotwAcked(a, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const b = x.sotw();
      await sotwAcked(b, { node: x.node(), type_url: LISTENER_TYPE, resource_names: [] });
      await sotwAcked(b, { type_url: CLUSTER_TYPE, resource_names: [] });
    },
  },
  {
    title: 'a SotW and a delta stream of one proxy are answered with the same version',
    async run(x) {
      const a = x.sotw();
      await sotwAcked(a, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const d = x.delta();
      await deltaAcked(d, { node: x.node(), type_url: CLUSTER_TYPE });
    },
  },
  {
    title: 'a request with an old version and no nonce (a reconnect) gets the current version',
    async run(x) {
      const s = x.sotw();
      await sotwAcked(s, { node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const again = x.sotw();
      again.send({
        node: x.node(),
        type_url: LISTENER_TYPE,
        resource_names: [],
        version_info: '2026-01-01T00:00:00Z/1',
      });
      await again.read();
      await again.silent();
    },
  },
  {
    title: 'delta: a new subscription on a type is answered at the same system_version',
    async run(x) {
      const s = x.delta();
      await deltaAcked(s, {
        node: x.node(),
        type_url: ROUTE_TYPE,
        resource_names_subscribe: [ORDERS_ROUTE],
      });
      await deltaAcked(s, { type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      await s.silent();
    },
  },
]);
