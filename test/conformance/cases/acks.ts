/** ACKs and NACKs in state of the world, and what syncz makes of them. */
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

export default cases('ACKs and NACKs', [
  {
    title: 'an ACK is not answered, and syncz shows the type SYNCED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE, resource_names: [] });
      const r = await s.read();
      s.send({ type_url: CLUSTER_TYPE, version_info: r.version, response_nonce: r.nonce });
      await s.silent();
      await x.syncz();
    },
  },
  {
    title: 'a NACK is not answered, and syncz shows it',
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
      await x.syncz();
    },
  },
]);
