/** The first request of a stream: the node, its id, its metadata. */
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

export default cases('First request', [
  {
    title: 'a first request without a node ends the stream: INVALID_ARGUMENT',
    async run(x) {
      const s = x.sotw();
      s.send({ type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a node with an empty id ends the stream',
    async run(x) {
      const s = x.sotw();
      s.send({ node: { ...x.node(), id: '' }, type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a sidecar node with its metadata is answered: all clusters',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'an id with three parts ends the stream, naming the id',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ id: 'sidecar~10.1.0.7~orders.default' }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an unknown node type ends the stream',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ type: 'gateway' }), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a stream whose requests are gzip-compressed ends: no decompressor',
    async run(x) {
      const s = x.sotw({ gzip: true });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a request over 4 MiB ends the stream: RESOURCE_EXHAUSTED',
    async run(x) {
      const s = x.sotw();
      // The size in a NACK's text, which the transcript shows as its code only; no node, so
      // that the size is the same for every pod (the relay's run too): it is refused first.
      const error_detail = { code: 3, message: 'x'.repeat(5 * 1024 * 1024) };
      s.send({ type_url: CLUSTER_TYPE, error_detail });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'a router node is answered',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node({ type: 'router' }), type_url: LISTENER_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'no IP in the id nor in INSTANCE_IPS ends the stream',
    async run(x) {
      const s = x.sotw();
      s.send({
        node: x.node({ ip: 'not-an-ip', metadata: { INSTANCE_IPS: '' } }),
        type_url: CLUSTER_TYPE,
      });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: a first request without a node ends the stream',
    async run(x) {
      const s = x.delta();
      s.send({ type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
]);
