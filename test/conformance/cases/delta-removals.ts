/** Delta xDS: how names that go away, or never were, are told to the proxy. */
import { CLUSTER_TYPE, ENDPOINT_TYPE, ROUTE_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ORDERS_CLUSTER, ORDERS_ROUTE } from './delta-subscriptions.js';

export default cases('Delta: removals', [
  {
    title: 'an EDS name that never existed is answered with an empty resource',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: ['outbound|1||nowhere.default.svc.cluster.local'],
      });
      await s.read();
    },
  },
  {
    title: 'an RDS name that never existed is answered with an empty route configuration',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ROUTE_TYPE, resource_names_subscribe: ['nowhere'] });
      await s.read();
    },
  },
  {
    title: 'a CDS name that never existed: every cluster is sent, and the name as removed',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names_subscribe: ['nowhere'] });
      await s.read();
    },
  },
  {
    title: 'unsubscribing an EDS name is not answered',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      const r = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, response_nonce: r.nonce });
      await s.silent();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_unsubscribe: [ORDERS_CLUSTER] });
      await s.silent();
    },
  },
  {
    title: 'unsubscribing an RDS name is not answered',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: ROUTE_TYPE, resource_names_subscribe: [ORDERS_ROUTE] });
      await s.read();
      s.send({ type_url: ROUTE_TYPE, resource_names_unsubscribe: [ORDERS_ROUTE] });
      await s.silent();
    },
  },
  {
    title: 'unsubscribing a CDS name of a wildcard subscription is answered with every cluster',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      s.send({ type_url: CLUSTER_TYPE, resource_names_unsubscribe: [ORDERS_CLUSTER] });
      await s.silent();
    },
  },
  {
    title: "a router's RDS name that never existed is answered with a resource of that name too",
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node({ type: 'router' }),
        type_url: ROUTE_TYPE,
        resource_names_subscribe: ['nowhere'],
      });
      await s.read();
    },
  },
]);
