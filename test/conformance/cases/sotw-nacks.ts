/**
 * NACKs in state of the world: istiod looks at `error_detail` before anything else (its
 * ShouldRespond), so every NACK is recorded (syncz's lastError, the rejects metric) and none
 * is answered, whatever nonce it carries.
 */
import { CLUSTER_TYPE, ENDPOINT_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ack, nack, NOWHERE, open, ORDERS } from '../support/sotw-steps.js';

export default cases('SotW: NACKs', [
  {
    title: 'a NACK with an empty nonce is recorded and not answered',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      nack(s, r, { nonce: '' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a NACK with a stale nonce is recorded and not answered',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r1 = await s.read();
      // A request without a nonce starts the watch again: a second response, R2.
      s.send({ type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      nack(s, r1);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a NACK with a nonce never sent is recorded and not answered',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      nack(s, r, { nonce: 'no-such-nonce' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a NACK after an ACK keeps the acked nonce and shows the error',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const r1 = await s.read();
      ack(s, r1, [ORDERS]);
      await s.silent();
      ack(s, r1, [ORDERS, NOWHERE]);
      const r2 = await s.read();
      nack(s, r2, { kept: r1.version, names: [ORDERS, NOWHERE] });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a second NACK replaces the first one’s message',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      nack(s, r, { message: 'first' });
      await s.silent();
      nack(s, r, { message: 'second' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'names on a NACK are not taken: the next ACK with them is answered with the added',
    async run(x) {
      const s = open(x, ENDPOINT_TYPE, [ORDERS]);
      const r = await s.read();
      nack(s, r, { names: [ORDERS, NOWHERE] });
      await s.silent();
      ack(s, r, [ORDERS, NOWHERE]);
      await s.read();
      await x.syncz();
    },
  },
]);
