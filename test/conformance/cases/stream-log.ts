/**
 * istiod's log lines about a stream (its info level: new connection, PUSH, ACK ERROR), with
 * the connection id written `<conId>`, the proxy id `<proxy>` and sizes `<n>`.
 */
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

export default cases('Log lines', [
  {
    title: "a NACK is logged as istiod's ACK ERROR line, with Go's name of the code",
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const r = await s.read();
      s.send({
        type_url: CLUSTER_TYPE,
        version_info: '',
        response_nonce: r.nonce,
        error_detail: { code: 13, message: 'probe rejects this' },
      });
      await s.silent();
      x.log(/ACK ERROR/);
    },
  },
  {
    title: 'a new stream and the response to its request are logged as istiod logs them',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      await s.read();
      await s.silent();
      x.log(/./);
    },
  },
  {
    title: 'delta: a new stream and the response to its request are logged as istiod logs them',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: LISTENER_TYPE });
      // Not read: only the log is compared here (delta responses have rules of their own).
      await x.settle();
      x.log(/./);
    },
  },
]);
