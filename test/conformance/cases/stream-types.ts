/**
 * Types istiod has no generator for: an unknown type URL or an empty one falls to its `api`
 * generator, which asks for a control-plane identity; HealthInformation is consumed.
 */
import { CLUSTER_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import { HEALTH_INFO_TYPE } from './stream-node.js';

const UNKNOWN_TYPE = 'type.googleapis.com/example.v1.Unknown';
const ISTIOD_IDENTITY = 'spiffe://cluster.local/ns/istio-system/sa/istiod';

export default cases('Types without a generator', [
  {
    title: 'an unknown type URL without an identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: UNKNOWN_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an unknown type URL after a served type ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      s.send({ type_url: UNKNOWN_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an empty type URL on the first request ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: '' });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: an unknown type URL without an identity ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: UNKNOWN_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: an empty type URL ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.delta();
      s.send({ node: x.node(), type_url: '' });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'HealthInformation after the node is consumed, never answered',
    async run(x) {
      const s = x.sotw();
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      s.send({ type_url: HEALTH_INFO_TYPE });
      await s.silent();
      s.send({ type_url: HEALTH_INFO_TYPE, error_detail: { code: 14, message: 'unhealthy' } });
      await s.silent();
      await s.end(300);
    },
  },
  {
    title: 'delta: HealthInformation after the node is consumed, never answered',
    async run(x) {
      // The stream starts on a type answered with no resources (an unknown one, asked for in
      // the root namespace), so that only the health report's silence is compared here.
      const s = x.delta({ identity: ISTIOD_IDENTITY });
      s.send({ node: x.node({ namespace: 'istio-system' }), type_url: UNKNOWN_TYPE });
      await s.read();
      s.send({ type_url: HEALTH_INFO_TYPE });
      await s.silent();
      await s.end(300);
    },
  },
]);
