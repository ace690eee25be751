/**
 * Scoped routes (SRDS), the type added by its descriptor alone (src/core/types/scoped-route.ts),
 * with a real Envoy: a listener whose connection manager picks its route configuration by a
 * header (`x-scope`), the scopes served over ADS and their route configurations over RDS.
 * Envoy asks for every scope (a wildcard subscription), ACKs them, and routes by them; a
 * scope pushed later starts routing too. Both protocols.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { LISTENER_TYPE, ROUTE_TYPE, TYPE_PREFIX } from '../../src/xds/type-urls.js';
import { makeLabResources } from '../../src/resources/lab.js';
import type { EnvoyResource } from '../../src/resources/types.js';
import { useLab } from '../support/harness/lab.js';

const SCOPED_ROUTE_TYPE = `${TYPE_PREFIX}envoy.config.route.v3.ScopedRouteConfiguration`;
const HCM_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const ADS = { ads: {}, resource_api_version: 'V3' };

/** The lab's inbound listener, its routes now chosen per scope by the `x-scope` header. */
function scopedInbound(inbound: EnvoyResource): EnvoyResource {
  const scopedRoutes = {
    name: 'scopes',
    scope_key_builder: { fragments: [{ header_value_extractor: { name: 'x-scope', index: 0 } }] },
    rds_config_source: ADS,
    scoped_rds: { scoped_rds_config_source: ADS },
  };
  const router = {
    name: 'envoy.filters.http.router',
    typed_config: { '@type': `${TYPE_PREFIX}envoy.extensions.filters.http.router.v3.Router` },
  };
  const hcm = { '@type': HCM_TYPE, stat_prefix: 'scoped', scoped_routes: scopedRoutes };
  return {
    '@type': LISTENER_TYPE,
    name: inbound.name,
    address: inbound.address,
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: { ...hcm, http_filters: [router] },
          },
        ],
      },
    ],
  };
}

const scope = (key: string) => ({
  '@type': SCOPED_ROUTE_TYPE,
  name: `scope-${key}`,
  route_configuration_name: `routes-${key}`,
  key: { fragments: [{ string_key: key }] },
});

const routes = (key: string) => ({
  '@type': ROUTE_TYPE,
  name: `routes-${key}`,
  virtual_hosts: [
    {
      name: key,
      domains: ['*'],
      routes: [
        {
          match: { prefix: '/' },
          direct_response: { status: 200, body: { inline_string: `scope ${key}` } },
        },
      ],
    },
  ],
});

async function getScoped(url: string, key: string): Promise<string> {
  const res = await fetch(url, { headers: { 'x-scope': key }, signal: AbortSignal.timeout(5_000) });
  return `${res.status} ${await res.text()}`;
}

const labs = useLab();

describe.each(['sotw', 'delta'] as const)('scoped routes over %s', (xdsMode) => {
  it('are asked for as a wildcard, ACKed, routed by, and a scope pushed later routes too', async () => {
    const lab = await labs.start(
      {},
      {
        xdsMode,
        transform: (resources) => [
          ...resources.map((r) => (r.name === 'virtualInbound' ? scopedInbound(r) : r)),
          scope('a'),
          routes('a'),
        ],
      },
    );
    const { envoy, istiod } = lab;
    await envoy.waitForLive({ timeoutMs: 20_000 });
    const acked = await istiod.waitForAck(SCOPED_ROUTE_TYPE);
    expect(acked.version).not.toBe('');
    const url = lab.inboundUrl('/orders');
    await waitFor(async () => (await getScoped(url, 'a')) === '200 scope a', {
      description: 'traffic with x-scope: a to be answered by scope a',
    });
    expect(await getScoped(url, 'b')).toMatch(/^404/);

    const current = istiod.snapshot();
    expect(current.get(SCOPED_ROUTE_TYPE).resources.size).toBe(1);
    const pushed = await istiod.control.setResources({
      resources: [
        ...makeLabResources(lab.ports).map((r) =>
          r.name === 'virtualInbound' ? scopedInbound(r) : r,
        ),
        scope('a'),
        routes('a'),
        scope('b'),
        routes('b'),
      ],
    });
    expect(pushed.warnings).toEqual([]);
    await waitFor(async () => (await getScoped(url, 'b')) === '200 scope b', {
      description: 'traffic with x-scope: b to be answered by the scope pushed later',
    });
    expect(await getScoped(url, 'a')).toBe('200 scope a');
  });
});
