/** istiod's debug types over ADS on a stream without a verified identity. */
import {
  CONFIG_DUMP_DEBUG_TYPE,
  DEBUG_TYPE,
  SYNCZ_DEBUG_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';

export default cases('Debug types', [
  {
    title: 'syncz without a verified identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: SYNCZ_DEBUG_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'config_dump without a verified identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CONFIG_DUMP_DEBUG_TYPE, resource_names: [x.proxyId] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'istio.io/debug without a verified identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: DEBUG_TYPE, resource_names: ['syncz'] });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an unknown istio.io/debug/ type without a verified identity: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: `${DEBUG_TYPE}/nothing` });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: syncz without a verified identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: SYNCZ_DEBUG_TYPE });
      await s.read();
      await s.end();
    },
  },
]);
