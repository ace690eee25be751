/**
 * Which names a state-of-the-world request asks for, and what istiod answers: an empty list
 * removes a watch of EDS, RDS, SDS and ECDS; a change of names on an ACK is answered only
 * when names were added; CDS and LDS are sent whole whatever the names; a name that does
 * not exist gets an empty resource of that name.
 */
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  EXTENSION_CONFIG_TYPE,
  LISTENER_TYPE,
  ROUTE_TYPE,
  SECRET_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import type { Exchange } from '../support/exchange.js';
import { ack, NOWHERE, open, ORDERS, ROUTE_8101 } from '../support/sotw-steps.js';

const emptyFirst = (type: string, typeUrl: string) => ({
  title: `${type}: a first request with no names is not answered, and starts no watch`,
  async run(x: Exchange) {
    const s = open(x, typeUrl);
    await s.silent();
    await x.syncz();
  },
});

export const emptyNames = cases('SotW: empty resource_names', [
  emptyFirst('EDS', ENDPOINT_TYPE),
  emptyFirst('RDS', ROUTE_TYPE),
  emptyFirst('SDS', SECRET_TYPE),
  emptyFirst('ECDS', EXTENSION_CONFIG_TYPE),
  {
    title: 'EDS: an ACK with no names removes the watch, unanswered',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const r = await s.read();
      ack(s, r, []);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'EDS: after the watch is removed, the old nonce starts a new one: answered',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const r = await s.read();
      ack(s, r, []);
      await s.silent();
      ack(s, r, [ORDERS]);
      await s.read();
    },
  },
]);

export const subscriptionChanges = cases('SotW: subscription changes on an ACK', [
  {
    title: 'EDS: a name added on an ACK is answered with the added name only',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const r = await s.read();
      ack(s, r, [ORDERS, NOWHERE]);
      const r2 = await s.read();
      ack(s, r2, [ORDERS, NOWHERE]);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'EDS: a name removed on an ACK is not answered, and the ACK counts',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS, NOWHERE]);
      const r = await s.read();
      ack(s, r, [ORDERS]);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'EDS: one name swapped for another is answered with the new name only',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [NOWHERE]);
      const r = await s.read();
      ack(s, r, [ORDERS]);
      await s.read();
    },
  },
  {
    title: 'RDS: a name added on an ACK is answered with the added name only',
    async run(x) {
      const s = open(x, ROUTE_TYPE, [ROUTE_8101]);
      const r = await s.read();
      ack(s, r, [ROUTE_8101, 'no-such-route']);
      await s.read();
    },
  },
  {
    title: 'CDS: names added on an ACK are answered with every cluster',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      ack(s, r, [ORDERS]);
      await s.read();
    },
  },
  {
    title: 'CDS: names removed on an ACK are answered with every cluster',
    async run(x) {
      const s = open(x, CLUSTER_TYPE, [ORDERS]);
      const r = await s.read();
      ack(s, r, []);
      await s.read();
    },
  },
]);

export const byName = cases('SotW: CDS and LDS asked by name', [
  {
    title: 'CDS asked for one name is answered with every cluster',
    async run(x) {
      const s = open(x, CLUSTER_TYPE, [ORDERS]);
      await s.read();
    },
  },
  {
    title: 'LDS asked for a name that does not exist is answered with every listener',
    async run(x) {
      const s = open(x, LISTENER_TYPE, ['no-such-listener']);
      await s.read();
    },
  },
  {
    // istiod's grpc generator builds only what a proxyless client names (LDS too; the mock
    // is given no proxyless listeners here, so CDS shows it).
    title: 'proxyless gRPC (GENERATOR grpc): CDS asked by name is answered with those alone',
    async run(x) {
      const s = x.sotw();
      const node = x.node({ metadata: { GENERATOR: 'grpc' } });
      s.send({ node, type_url: CLUSTER_TYPE, resource_names: [ORDERS] });
      const r = await s.read();
      ack(s, r, [ORDERS, NOWHERE]);
      await s.read();
    },
  },
  {
    title: 'CDS asked for ["*"] is answered with every cluster',
    async run(x) {
      const s = open(x, CLUSTER_TYPE, ['*']);
      await s.read();
    },
  },
  {
    title: 'EDS asked for ["*"]: "*" is a name like any other',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, ['*']);
      await s.read();
    },
  },
]);

export const missingNames = cases('SotW: names that do not exist', [
  {
    title: 'EDS: an unknown name is answered with an empty ClusterLoadAssignment of that name',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [NOWHERE]);
      await s.read();
    },
  },
  {
    title: 'EDS: known and unknown names together: one resource for each',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [NOWHERE, ORDERS]);
      await s.read();
    },
  },
  {
    title: 'RDS: an unknown name is answered with a RouteConfiguration of that name',
    async run(x) {
      const s = open(x, ROUTE_TYPE, ['no-such-route']);
      await s.read();
    },
  },
  {
    title: 'RDS for a gateway: an unknown name is answered with an empty RouteConfiguration too',
    async run(x) {
      const s = x.sotw();
      s.send({
        node: x.node({ type: 'router' }),
        type_url: ROUTE_TYPE,
        resource_names: ['no-such-route'],
      });
      await s.read();
    },
  },
  {
    title: 'EDS for a gateway: an unknown name is answered with an empty ClusterLoadAssignment',
    async run(x) {
      const s = x.sotw();
      s.send({
        node: x.node({ type: 'router' }),
        type_url: ENDPOINT_TYPE,
        resource_names: [NOWHERE],
      });
      await s.read();
    },
  },
  {
    title: 'ECDS: an unknown name is answered with no resources',
    async run(x) {
      const s = open(x, EXTENSION_CONFIG_TYPE, ['no-such-extension']);
      await s.read();
    },
  },
]);

export default [...emptyNames, ...subscriptionChanges, ...byName, ...missingNames];
