/**
 * istiod's debug types over ADS for a verified identity, by its namespace (statusgen.go
 * `callerNamespaceFilter`, debuggen.go `parseAndValidateDebugRequest`, debug.go
 * `getDebugConnection`): outside the root namespace a caller sees only its own namespace's
 * proxies and may ask `istio.io/debug` for `config_dump`, `ndsz` and `edsz` only; in
 * istio-system it reads everything. Each case puts its proxies in namespaces of its own
 * (`<pod>-a`, `<pod>-b`), so what another case connects at the same time cannot show.
 */
import {
  CONFIG_DUMP_DEBUG_TYPE,
  DEBUG_TYPE,
  ROUTE_TYPE,
  SYNCZ_DEBUG_TYPE,
} from '../../../src/xds/type-urls.js';
import { cases } from '../support/case.js';
import type { Exchange } from '../support/exchange.js';
import { ORDERS_ROUTE } from './versions-shared.js';

const ISTIOD = 'spiffe://cluster.local/ns/istio-system/sa/istiod';

/** The case's own namespaces. */
const nsA = (x: Exchange) => `${x.pod}-a`;
const nsB = (x: Exchange) => `${x.pod}-b`;
const identityIn = (namespace: string) => `spiffe://cluster.local/ns/${namespace}/sa/orders`;

/** A debug client's node as istioctl sends it: no PROXY_CONFIG, so syncz leaves it out. */
function istioctlNode(x: Exchange, namespace: string) {
  return x.node({
    namespace,
    replaceMetadata: true,
    metadata: { NAMESPACE: namespace, GENERATOR: 'event', INSTANCE_IPS: x.podIp },
  });
}

/**
 * A proxy of the case's pod in `namespace`, connected on the TLS port with that identity. It
 * asks for one route by name, which both servers answer alike whatever the namespace (its
 * clusters would depend on istiod's view of a pod that namespace does not have).
 */
async function proxyIn(x: Exchange, namespace: string): Promise<void> {
  const s = x.sotw({ identity: identityIn(namespace) });
  s.send({ node: x.node({ namespace }), type_url: ROUTE_TYPE, resource_names: [ORDERS_ROUTE] });
  await s.read();
}

/** A debug client in `namespace` (the root one for `ISTIOD`) asking `typeUrl` once. */
async function ask(
  x: Exchange,
  namespace: string,
  typeUrl: string,
  names?: string[],
  protocol: 'sotw' | 'delta' = 'sotw',
): Promise<void> {
  const identity = namespace === 'istio-system' ? ISTIOD : identityIn(namespace);
  const s = protocol === 'sotw' ? x.sotw({ identity }) : x.delta({ identity });
  const node = istioctlNode(x, namespace);
  if (protocol === 'sotw') s.send({ node, type_url: typeUrl, resource_names: names });
  else s.send({ node, type_url: typeUrl, resource_names_subscribe: names });
  await s.read();
  await s.end(300);
}

export default cases('Debug types by namespace', [
  {
    title: "syncz outside the root namespace leaves out other namespaces' proxies",
    async run(x) {
      await proxyIn(x, nsA(x));
      await proxyIn(x, nsB(x));
      await ask(x, nsA(x), SYNCZ_DEBUG_TYPE);
    },
  },
  {
    title: "syncz in the root namespace lists every namespace's proxies",
    async run(x) {
      await proxyIn(x, nsA(x));
      await proxyIn(x, nsB(x));
      await ask(x, 'istio-system', SYNCZ_DEBUG_TYPE);
    },
  },
  {
    title: "config_dump of a proxy in the caller's namespace is answered",
    async run(x) {
      await proxyIn(x, nsA(x));
      await ask(x, nsA(x), CONFIG_DUMP_DEBUG_TYPE, [`${x.pod}.${nsA(x)}`]);
    },
  },
  {
    title: 'config_dump of a proxy in another namespace is answered with nothing',
    async run(x) {
      await proxyIn(x, nsB(x));
      await ask(x, nsA(x), CONFIG_DUMP_DEBUG_TYPE, [`${x.pod}.${nsB(x)}`]);
    },
  },
  {
    title: 'config_dump of any namespace in the root namespace',
    async run(x) {
      await proxyIn(x, nsB(x));
      await ask(x, 'istio-system', CONFIG_DUMP_DEBUG_TYPE, [`${x.pod}.${nsB(x)}`]);
    },
  },
  {
    title:
      'istio.io/debug connections outside the root namespace ends the stream: PERMISSION_DENIED',
    async run(x) {
      await ask(x, nsA(x), DEBUG_TYPE, ['connections']);
    },
  },
  {
    title: 'istio.io/debug adsz outside the root namespace ends the stream: PERMISSION_DENIED',
    async run(x) {
      await ask(x, nsA(x), DEBUG_TYPE, ['adsz']);
    },
  },
  {
    title: 'istio.io/debug syncz outside the root namespace ends the stream: PERMISSION_DENIED',
    async run(x) {
      await ask(x, nsA(x), DEBUG_TYPE, ['syncz']);
    },
  },
  {
    title: 'delta: istio.io/debug connections outside the root namespace: PERMISSION_DENIED',
    async run(x) {
      await ask(x, nsA(x), DEBUG_TYPE, ['connections'], 'delta');
    },
  },
  {
    title: "istio.io/debug config_dump?proxyID= of the caller's namespace: the dump",
    async run(x) {
      await proxyIn(x, nsA(x));
      await ask(x, nsA(x), DEBUG_TYPE, [`config_dump?proxyID=${x.pod}.${nsA(x)}`]);
    },
  },
  {
    title: "istio.io/debug config_dump?proxyID= of another namespace: istiod's 'not connected'",
    async run(x) {
      await proxyIn(x, nsB(x));
      await ask(x, nsA(x), DEBUG_TYPE, [`config_dump?proxyID=${x.pod}.${nsB(x)}`]);
    },
  },
  {
    title: 'istio.io/debug syncz and connections in the root namespace are answered',
    async run(x) {
      await proxyIn(x, nsA(x));
      await ask(x, 'istio-system', DEBUG_TYPE, ['syncz']);
      await ask(x, 'istio-system', DEBUG_TYPE, ['connections']);
    },
  },
]);
