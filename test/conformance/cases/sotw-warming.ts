/**
 * EDS after CDS (istiod's warming rule): a new CDS watch makes the next EDS request answered
 * even when it looks like an ACK (same names, current nonce), so that clusters Envoy warms
 * again get their endpoints (envoyproxy/envoy#13009).
 */
import { CLUSTER_TYPE, ENDPOINT_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ack, open, ORDERS } from '../support/sotw-steps.js';

export default cases('SotW: EDS after CDS', [
  {
    title: 'a new CDS watch makes the next EDS ACK answered, once',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const eds = await s.read();
      ack(s, eds, [ORDERS]);
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, resource_names: [] });
      const cds = await s.read();
      ack(s, cds);
      await s.silent();
      ack(s, eds, [ORDERS]);
      const eds2 = await s.read();
      ack(s, eds2, [ORDERS]);
      await s.silent();
    },
  },
  {
    title: 'a CDS request starting the watch again (no nonce) forces the next EDS answer too',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const cds = await s.read();
      ack(s, cds);
      await s.silent();
      s.send({ type_url: ENDPOINT_TYPE, resource_names: [ORDERS] });
      const eds = await s.read();
      ack(s, eds, [ORDERS]);
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, version_info: cds.version, resource_names: [] });
      await s.read();
      ack(s, eds, [ORDERS]);
      await s.read();
    },
  },
  {
    title: 'a CDS ACK is not a new watch: the EDS ACK after it stays unanswered',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const cds = await s.read();
      s.send({ type_url: ENDPOINT_TYPE, resource_names: [ORDERS] });
      const eds = await s.read();
      ack(s, cds);
      await s.silent();
      ack(s, eds, [ORDERS]);
      await s.silent();
      await x.syncz();
    },
  },
]);
