/** Delta xDS: reconnecting with initial_resource_versions, and EDS after CDS. */
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ORDERS_CLUSTER } from './delta-subscriptions.js';

export default cases('Delta: reconnects and EDS after CDS', [
  {
    title: 'a CDS reconnect with initial_resource_versions is sent every cluster again',
    async run(x) {
      const first = x.delta();
      first.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const r = await first.read();
      first.close();
      const s = x.delta();
      const initial = Object.fromEntries(r.names.map((n) => [n, 'v1']));
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, initial_resource_versions: initial });
      await s.read();
    },
  },
  {
    title: 'an EDS reconnect with initial_resource_versions is sent those names again',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        initial_resource_versions: { [ORDERS_CLUSTER]: 'v1' },
      });
      await s.read();
    },
  },
  {
    title: 'an LDS reconnect with a nonce from the last stream is answered',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: LISTENER_TYPE, response_nonce: 'from-another-istiod' });
      await s.read();
    },
  },
  {
    title: 'a CDS request after EDS is answered, then EDS is pushed in full',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      await s.read();
      s.send({ type_url: CLUSTER_TYPE });
      await s.read();
      await s.read();
    },
  },
  {
    title: 'a CDS ACK is not answered and forces no EDS push',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const c = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: c.nonce });
      await s.silent();
    },
  },
  {
    title: 'a later CDS subscription is answered, then EDS is pushed in full',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      await s.read();
      s.send({ type_url: CLUSTER_TYPE, resource_names_subscribe: ['*'] });
      await s.read();
      await s.read();
    },
  },
  {
    title:
      'a CDS reconnect listing a cluster that is gone is sent every cluster, and that one as removed',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: CLUSTER_TYPE,
        initial_resource_versions: {
          [ORDERS_CLUSTER]: 'v1',
          'outbound|1||gone.default.svc.cluster.local': 'v1',
        },
      });
      await s.read();
    },
  },
]);
