/** Delta xDS: what a subscription covers, and which requests istiod answers. */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

/** The lab's one EDS cluster, and the route configuration its listener names. */
export const ORDERS_CLUSTER = 'outbound|8101||orders.default.svc.cluster.local';
export const ORDERS_ROUTE = '8101';
/** An EDS name no service has (orders has no port 8102): istiod answers it all the same. */
export const ABSENT_CLUSTER = 'outbound|8102||orders.default.svc.cluster.local';

export default cases('Delta: subscriptions', [
  {
    title: 'a first CDS request with no names is a wildcard: every cluster, unversioned',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
    },
  },
  {
    title: 'a first LDS request with no names is a wildcard: every listener',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: LISTENER_TYPE });
      await s.read();
    },
  },
  {
    title: 'a first EDS request with no names stays silent',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ENDPOINT_TYPE });
      await s.silent();
    },
  },
  {
    title: 'a first RDS request with no names stays silent',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ROUTE_TYPE });
      await s.silent();
    },
  },
  {
    title: 'a first EDS request naming a cluster is answered with its endpoints',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
    },
  },
  {
    title: 'a first RDS request naming a route configuration is answered with it',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ROUTE_TYPE, resource_names_subscribe: [ORDERS_ROUTE] });
      await s.read();
    },
  },
  {
    title: 'CDS naming one cluster is still sent every cluster',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: CLUSTER_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
    },
  },
  {
    title: 'LDS naming one listener is still sent every listener',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: LISTENER_TYPE,
        resource_names_subscribe: ['virtualOutbound'],
      });
      await s.read();
    },
  },
  {
    title: 'CDS subscribing to * is a wildcard: every cluster',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names_subscribe: ['*'] });
      await s.read();
    },
  },
  {
    title: 'CDS subscribing to * and a name is a wildcard: every cluster',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: CLUSTER_TYPE,
        resource_names_subscribe: ['*', ORDERS_CLUSTER],
      });
      await s.read();
    },
  },
  {
    title: 'a later EDS subscription is answered with the new name only (empty when absent)',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ABSENT_CLUSTER],
      });
      await s.read();
    },
  },
  {
    title: 'a subscription repeating a name already subscribed stays silent',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      await s.silent();
    },
  },
  {
    title: 'a subscription carried by an ACK is answered, with the new name only',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ROUTE_TYPE, resource_names_subscribe: [ORDERS_ROUTE] });
      const r = await s.read();
      s.send({ type_url: ROUTE_TYPE, response_nonce: r.nonce, resource_names_subscribe: ['80'] });
      await s.read();
    },
  },
]);
