/** Delta xDS: ACKs, NACKs and stale nonces, and what syncz makes of them. */
import { CLUSTER_TYPE, ENDPOINT_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ABSENT_CLUSTER, ORDERS_CLUSTER } from './delta-subscriptions.js';

export default cases('Delta: ACKs and NACKs', [
  {
    title: 'an ACK is not answered, and syncz shows it acknowledged',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const r = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: r.nonce });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'before any ACK, syncz shows the response sent and nothing acknowledged',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await x.syncz();
    },
  },
  {
    title: 'a NACK is not answered, and syncz shows its error',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        response_nonce: r.nonce,
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'an ACK after a NACK clears the error in syncz',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        response_nonce: r.nonce,
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: r.nonce });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a subscription in a NACK is dropped: subscribing again later is answered',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      const r = await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        response_nonce: r.nonce,
        resource_names_subscribe: [ABSENT_CLUSTER],
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ABSENT_CLUSTER] });
      await s.read();
    },
  },
  {
    title: 'a subscription with a stale nonce is dropped: subscribing again later is answered',
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
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ABSENT_CLUSTER] });
      await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        response_nonce: r.nonce,
        resource_names_subscribe: ['outbound|1||nowhere.default.svc.cluster.local'],
      });
      await s.silent();
      s.send({
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: ['outbound|1||nowhere.default.svc.cluster.local'],
      });
      await s.read();
    },
  },
  {
    title: 'an unsubscription with a stale nonce is dropped: the name is still pushed with EDS',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      const c = await s.read();
      s.send({ type_url: CLUSTER_TYPE, response_nonce: c.nonce });
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ORDERS_CLUSTER] });
      const r = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ABSENT_CLUSTER] });
      await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        response_nonce: r.nonce,
        resource_names_unsubscribe: [ORDERS_CLUSTER],
      });
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, resource_names_subscribe: ['*'] });
      await s.read();
      await s.silent();
    },
  },
  {
    title: 'a NACK naming an older response still records its error in syncz',
    async run(x) {
      const s = x.delta();
      s.send({
        node: x.node(),
        type_url: ENDPOINT_TYPE,
        resource_names_subscribe: [ORDERS_CLUSTER],
      });
      const r = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names_subscribe: [ABSENT_CLUSTER] });
      await s.read();
      s.send({
        type_url: ENDPOINT_TYPE,
        response_nonce: r.nonce,
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      await x.syncz();
    },
  },
]);
