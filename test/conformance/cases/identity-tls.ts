/**
 * Streams on the TLS port (istiod's 15012): a client certificate's SPIFFE id is the
 * stream's identity, checked against the node and, for debug and unknown types, against
 * istiod's root namespace (istio-system).
 */
import { CLUSTER_TYPE, SYNCZ_DEBUG_TYPE } from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import type { Exchange } from '../support/exchange.js';

const ISTIOD = 'spiffe://cluster.local/ns/istio-system/sa/istiod';
const ORDERS = 'spiffe://cluster.local/ns/default/sa/orders';
const OTHER_NS = 'spiffe://cluster.local/ns/payments/sa/orders';
const UNKNOWN_TYPE = 'type.googleapis.com/example.v1.Unknown';

/** A debug client's node as istioctl sends it: no PROXY_CONFIG, so syncz leaves it out. */
function istioctlNode(x: Exchange, namespace: string) {
  return x.node({
    namespace,
    replaceMetadata: true,
    metadata: { NAMESPACE: namespace, GENERATOR: 'event', INSTANCE_IPS: x.podIp },
  });
}

export default cases('Identity', [
  {
    title: 'TLS without a client certificate ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.sotw({ tls: true });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: "a certificate of the proxy's namespace is served",
    async run(x) {
      const s = x.sotw({ identity: ORDERS });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'a certificate of another namespace ends the stream: PERMISSION_DENIED',
    async run(x) {
      const s = x.sotw({ identity: OTHER_NS });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: "a certificate of another service account than the node's ends the stream",
    async run(x) {
      const s = x.sotw({ identity: ORDERS });
      s.send({
        node: x.node({ metadata: { SERVICE_ACCOUNT: 'billing' } }),
        type_url: CLUSTER_TYPE,
      });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an unknown type outside the root namespace ends the stream: PERMISSION_DENIED',
    async run(x) {
      const s = x.sotw({ identity: ORDERS });
      s.send({ node: x.node(), type_url: UNKNOWN_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'an unknown type in the root namespace is answered empty',
    async run(x) {
      const s = x.sotw({ identity: ISTIOD });
      s.send({ node: x.node({ namespace: 'istio-system' }), type_url: UNKNOWN_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: 'syncz in the root namespace lists the proxies',
    async run(x) {
      // On the TLS port too: the mock's TLS port is a second mock, which knows its own streams.
      const proxy = x.sotw({ identity: ORDERS });
      proxy.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await proxy.read();
      const s = x.sotw({ identity: ISTIOD });
      s.send({ node: istioctlNode(x, 'istio-system'), type_url: SYNCZ_DEBUG_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title: "syncz outside the root namespace lists its namespace's proxies",
    async run(x) {
      const proxy = x.sotw({ identity: ORDERS });
      proxy.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await proxy.read();
      const s = x.sotw({ identity: ORDERS });
      s.send({ node: istioctlNode(x, 'default'), type_url: SYNCZ_DEBUG_TYPE });
      await s.read();
      await s.end(300);
    },
  },
  {
    title:
      "the first authenticator that succeeds wins: a token's identity does not add to the certificate's",
    async run(x) {
      // The certificate (checked first) names another namespace; the token names the
      // proxy's own. istiod stops at the certificate, so the node is not authorized.
      const token = { namespace: 'default', serviceAccount: 'orders' };
      const s = x.sotw({ identity: OTHER_NS, token });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
  {
    title: 'delta: TLS without a client certificate ends the stream: UNAUTHENTICATED',
    async run(x) {
      const s = x.delta({ tls: true });
      s.send({ node: x.node(), type_url: CLUSTER_TYPE });
      await s.read();
      await s.end();
    },
  },
]);
