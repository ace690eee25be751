/** istiod's log lines about a stream, with the connection id written `<conId>`. */
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

export default cases('Log lines', [
  {
    title: "a NACK is logged as istiod's ACK ERROR line",
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
      x.log(/ACK|NACK/);
    },
  },
]);
