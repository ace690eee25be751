/**
 * ACKs in state of the world: a request that names the nonce last sent, without an error,
 * is an ACK whatever its `version_info` says; it clears the last NACK's error. Any other
 * nonce is stale and ignored.
 */
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { ack, nack, open } from '../support/sotw-steps.js';

export default cases('SotW: ACKs', [
  {
    title: 'an ACK with an empty version_info is an ACK: not answered, SYNCED',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      ack(s, { ...r, version: '' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'an ACK with a version never sent is an ACK: not answered, SYNCED',
    async run(x) {
      const s = open(x, LISTENER_TYPE);
      const r = await s.read();
      ack(s, { ...r, version: '2020-01-01T00:00:00Z/1' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'after a NACK, the same nonce without an error is an ACK: acked, error cleared',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      nack(s, r);
      await s.silent();
      // Envoy's next request for the type: the version it kept (none yet), the same nonce.
      ack(s, { ...r, version: '' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'after a NACK, an ACK naming the rejected version clears the error too',
    async run(x) {
      const s = open(x, LISTENER_TYPE);
      const r = await s.read();
      nack(s, r);
      await s.silent();
      ack(s, r);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a stale nonce (not the latest sent) is ignored: not answered, acked unchanged',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r1 = await s.read();
      s.send({ type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      ack(s, r1);
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a nonce never sent is ignored',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      ack(s, { ...r, nonce: 'no-such-nonce' });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a request without a nonce on a watched type starts it again: answered, not acked',
    async run(x) {
      const s = open(x, CLUSTER_TYPE);
      const r = await s.read();
      ack(s, r);
      await s.silent();
      s.send({ type_url: CLUSTER_TYPE, version_info: r.version, resource_names: [] });
      await s.read();
      await x.syncz();
    },
  },
]);
