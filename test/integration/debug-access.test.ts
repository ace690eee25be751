/**
 * Who may read istiod's debug types over ADS, by identity (src/debug/debug-access.ts): a
 * caller outside istio-system sees only its own namespace's proxies and three `istio.io/debug`
 * endpoints; a caller in istio-system reads everything. Driven through the TLS port with pods'
 * tokens, as istioctl and pilot-agent reach istiod's 15012. The differential twins are the
 * conformance cases "Debug types by namespace".
 */
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect } from 'vitest';
import type { MockIstiodOptions } from '../../src/app/options.js';
import { AdsTestClient, type ClientResponse } from '../../src/testing/ads-client.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { PROXY_NOT_CONNECTED } from '../../src/control/debug-routes.js';
import { CONFIG_DUMP_DEBUG_TYPE, DEBUG_TYPE, SYNCZ_DEBUG_TYPE } from '../../src/xds/type-urls.js';
import { bearer } from '../support/fixtures/ca.js';
import { requestClusters } from '../support/fixtures/handshake.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it, type Fixtures } from '../support/fixtures/test.js';

const clients: AdsTestClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

/** A client on the TLS port whose streams carry the token of `<namespace>/orders`. */
function caller(istiod: TestMockIstiod, namespace: string) {
  const credentials = grpc.credentials.createSsl(Buffer.from(istiod.security.rootCert));
  const client = new AdsTestClient(istiod.xdsAddress, credentials, {
    'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
  });
  clients.push(client);
  const { token } = istiod.security.createToken({ namespace, serviceAccount: 'orders' });
  return { stream: () => client.sotw(bearer(token)), node: sidecarNode('istioctl', namespace) };
}

/** A TLS mock with a proxy connected in `default` (orders-v1-0) and one in `shop` (cart-0). */
async function startWithProxies(
  startMock: Fixtures['startMock'],
  options: Partial<MockIstiodOptions> = {},
) {
  const istiod = await startMock({ tls: true, ...options });
  for (const [pod, namespace] of [
    ['orders-v1-0', 'default'],
    ['cart-0', 'shop'],
  ] as const) {
    const proxy = caller(istiod, namespace);
    await requestClusters(proxy.stream(), { node: sidecarNode(pod, namespace) });
  }
  return istiod;
}

/** Asks `typeUrl` (with `names`) as a caller of `namespace`; the answer or how it ended. */
async function ask(
  istiod: TestMockIstiod,
  namespace: string,
  typeUrl: string,
  names: string[] = [],
): Promise<ClientResponse | { code: number; details: string }> {
  const { stream, node } = caller(istiod, namespace);
  const debug = stream();
  debug.send({ type_url: typeUrl, node, resource_names: names });
  return debug.next().catch(() => debug.done);
}

function names(answer: Awaited<ReturnType<typeof ask>>): string[] {
  if (!('resources' in answer)) throw new Error(`the stream ended: ${JSON.stringify(answer)}`);
  return answer.resources.map((r) => r.value.toString('latin1'));
}

function body(answer: Awaited<ReturnType<typeof ask>>): string {
  const [only = ''] = names(answer);
  return only;
}

const denied = (namespace: string) => ({
  code: grpc.status.PERMISSION_DENIED,
  details: `the debug info is not available for current identity: "spiffe://cluster.local/ns/${namespace}/sa/orders"`,
});

describe('debug types over ADS, by the caller’s namespace', () => {
  it('syncz: a caller outside istio-system sees its own namespace, istio-system sees all', async ({
    startMock,
  }) => {
    const istiod = await startWithProxies(startMock);
    const shop = names(await ask(istiod, 'shop', SYNCZ_DEBUG_TYPE));
    expect(shop.map((n) => n.includes('cart-0.shop'))).toEqual([true]);
    const root = names(await ask(istiod, 'istio-system', SYNCZ_DEBUG_TYPE));
    expect(root.filter((n) => /orders-v1-0\.default|cart-0\.shop/.test(n))).toHaveLength(2);
  });

  it.for(['connections', 'adsz', 'syncz', 'streamz'])(
    'istio.io/debug %s outside istio-system: PERMISSION_DENIED with istiod’s text',
    async (endpoint, { startMock }) => {
      const istiod = await startWithProxies(startMock);
      expect(await ask(istiod, 'shop', DEBUG_TYPE, [endpoint])).toEqual(denied('shop'));
      expect(JSON.parse(body(await ask(istiod, 'istio-system', DEBUG_TYPE, [endpoint])))).toEqual(
        expect.anything(),
      );
    },
  );

  it('config_dump: of a proxy in the caller’s namespace, not of one in another', async ({
    startMock,
  }) => {
    const istiod = await startWithProxies(startMock);
    expect(names(await ask(istiod, 'shop', CONFIG_DUMP_DEBUG_TYPE, ['cart-0.shop']))).not.toEqual(
      [],
    );
    expect(
      names(await ask(istiod, 'shop', CONFIG_DUMP_DEBUG_TYPE, ['orders-v1-0.default'])),
    ).toEqual([]);
    expect(
      names(await ask(istiod, 'istio-system', CONFIG_DUMP_DEBUG_TYPE, ['orders-v1-0.default'])),
    ).not.toEqual([]);
    const own = body(await ask(istiod, 'shop', DEBUG_TYPE, ['config_dump?proxyID=cart-0.shop']));
    expect(JSON.parse(own)).toHaveProperty('configs');
    const other = ['config_dump?proxyID=orders-v1-0.default'];
    expect(body(await ask(istiod, 'shop', DEBUG_TYPE, other))).toBe(PROXY_NOT_CONNECTED);
  });

  it('debugAuth: false lifts the namespace filter, not istio.io/debug’s endpoint rule', async ({
    startMock,
  }) => {
    const istiod = await startWithProxies(startMock, { debugAuth: false });
    expect(names(await ask(istiod, 'shop', SYNCZ_DEBUG_TYPE))).toHaveLength(2);
    const other = ['config_dump?proxyID=orders-v1-0.default'];
    expect(JSON.parse(body(await ask(istiod, 'shop', DEBUG_TYPE, other)))).toHaveProperty(
      'configs',
    );
    expect(await ask(istiod, 'shop', DEBUG_TYPE, ['connections'])).toEqual(denied('shop'));
  });
});
