/**
 * `GET /ui/explain`'s answer shaping (src/target/operation-explain.ts): which admin API each
 * asked proxy is, the refusals that name how to give an address, and the rows and differences
 * of two small config_dumps shaped as the operation answers them (checked against its schema).
 */
import { describe, expect, it } from 'vitest';
import { EXPLAINED } from '../../src/api/explain-answers.js';
import { Refusal } from '../../src/api/operation.js';
import { explainProxies, resolveSources } from '../../src/target/operation-explain.js';
import type { StreamView } from '../../src/core/events.js';
import { UiAdmins } from '../../src/live/ui-admins.js';
import { checkJson } from '../support/fixtures/json-schema.js';

const L = 'type.googleapis.com/envoy.admin.v3.';

function tcp(cluster: string) {
  return {
    name: 'envoy.filters.network.tcp_proxy',
    typed_config: { stat_prefix: cluster, cluster },
  };
}

function listener(name: string, port: number, direction: string, cluster: string, extra = {}) {
  return {
    active_state: {
      listener: {
        name,
        address: { socket_address: { address: '127.0.0.1', port_value: port } },
        traffic_direction: direction,
        filter_chains: [{ filters: [tcp(cluster)] }],
        ...extra,
      },
    },
  };
}

/** A config_dump with the two entrances, the outbound one on `outboundPort`. */
function dump(outboundPort: number, catchAll: string) {
  return {
    configs: [
      {
        '@type': `${L}ClustersConfigDump`,
        dynamic_active_clusters: [
          { cluster: { name: catchAll, type: 'STATIC' } },
          { cluster: { name: 'inbound|8080||', type: 'STATIC' } },
        ],
      },
      {
        '@type': `${L}ListenersConfigDump`,
        dynamic_listeners: [
          listener('virtualOutbound', outboundPort, 'OUTBOUND', catchAll),
          listener('virtualInbound', 15006, 'INBOUND', 'inbound|8080||'),
        ],
      },
    ],
  };
}

function stream(nodeId: string, metadata: Record<string, unknown> = {}): StreamView {
  const id = nodeId.split('~')[2] ?? nodeId;
  return {
    connectionId: `c-${id}`,
    peer: 'ipv4:127.0.0.1:40000',
    connectedAt: new Date(0),
    protocol: 'sotw',
    proxy: {
      nodeId,
      type: 'sidecar',
      ipAddresses: ['127.0.0.1'],
      id,
      dnsDomain: 'default.svc.cluster.local',
      cluster: 'lab.default',
      metadata,
      clusterId: 'Kubernetes',
      istioVersion: '',
    },
    types: new Map(),
  };
}

const LAB = 'sidecar~127.0.0.1~lab-0.default~default.svc.cluster.local';
const ISTIOD = 'sidecar~127.0.0.1~orders-0.default~default.svc.cluster.local';
const addresses: Record<string, string> = {
  [LAB]: 'http://127.0.0.1:19000',
  [ISTIOD]: 'http://127.0.0.1:19001',
};
const parts = {
  streams: () => [stream(LAB), stream(ISTIOD), stream('sidecar~127.0.0.1~blind-0.default~x')],
  addressOf: (s: StreamView) => addresses[s.proxy.nodeId],
  fetchDump: (url: string) => {
    if (url === addresses[LAB]) return Promise.resolve(dump(10081, 'BlackHoleCluster'));
    if (url === addresses[ISTIOD]) return Promise.resolve(dump(15001, 'PassthroughCluster'));
    return Promise.reject(new Error('connect ECONNREFUSED'));
  },
};

describe('GET /ui/explain: which Envoy', () => {
  it('refuses an empty request, naming both ways to ask (400)', () => {
    const r = resolveSources(parts, { proxies: [], admins: [] });
    expect(r).toBeInstanceOf(Refusal);
    expect((r as Refusal).status).toBe(400);
    expect((r as Refusal).problems[0]).toEqual({
      path: 'proxy',
      message:
        'expected proxy=<node id> (a connected proxy) or admin=<host:port> (an Envoy admin API)',
    });
  });

  it('finds a proxy by node id or by <pod>.<namespace>, and an admin address as given', () => {
    const r = resolveSources(parts, {
      proxies: [LAB, 'orders-0.default'],
      admins: ['127.0.0.1:19002'],
    });
    expect(r).toEqual([
      { label: '127.0.0.1:19002', admin: 'http://127.0.0.1:19002', path: 'admin[0]' },
      { label: 'lab-0.default', admin: addresses[LAB], nodeId: LAB, path: 'proxy[0]' },
      { label: 'orders-0.default', admin: addresses[ISTIOD], nodeId: ISTIOD, path: 'proxy[1]' },
    ]);
  });

  it('404 for a proxy not connected, listing those that are', () => {
    const r = resolveSources(parts, { proxies: ['nobody'], admins: [] }) as Refusal;
    expect(r.status).toBe(404);
    expect(r.problems).toEqual([
      {
        path: 'proxy[0]',
        message: `no connected proxy has node id "nobody"; connected: ${LAB}, ${ISTIOD}, sidecar~127.0.0.1~blind-0.default~x`,
      },
    ]);
  });

  it('409 for a proxy whose admin address is not known, saying how to give it', () => {
    const r = resolveSources(parts, { proxies: ['blind-0.default'], admins: [] }) as Refusal;
    expect(r.status).toBe(409);
    expect(r.error).toBe('Envoy admin address not known');
    const message = r.problems[0]?.message ?? '';
    expect(r.problems[0]?.path).toBe('proxy[0]');
    expect(message).toContain('ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000');
    expect(message).toContain('POST /ui/admins');
    expect(message).toContain('?admin=host:port');
  });

  it('400 for a bad admin address, with its index', () => {
    const r = resolveSources(parts, { proxies: [], admins: ['127.0.0.1:1', 'not an/address'] });
    expect((r as Refusal).status).toBe(400);
    expect((r as Refusal).problems.map((p) => p.path)).toEqual(['admin[1]']);
  });
});

describe('GET /ui/explain: the answer', () => {
  it('one proxy: its rows, each value with the Envoy objects it became', async () => {
    const answer = await explainProxies(parts, { proxies: [LAB], admins: [] });
    expect(answer).not.toBeInstanceOf(Refusal);
    expect(checkJson(EXPLAINED, answer)).toEqual([]);
    if (answer instanceof Refusal) return;
    const [lab] = answer.configurations;
    expect(lab?.label).toBe('lab-0.default');
    expect(lab?.nodeId).toBe(LAB);
    expect(lab?.admin).toBe(addresses[LAB]);
    expect(lab?.unknownDestination).toBe('BlackHoleCluster');
    const byWhat = new Map(lab?.rows.map((r) => [r.what, r]));
    expect(byWhat.get('outbound capture')).toMatchObject({
      value: 'istio-init -p 15001',
      objects: ['virtualOutbound', 'BlackHoleCluster'],
    });
    expect(byWhat.get('outbound capture')?.becomes).toContain(
      'listener virtualOutbound OUTBOUND 127.0.0.1:10081',
    );
    expect(byWhat.get('outbound capture')?.becomes).toContain('NOT on 15001');
    expect(byWhat.get('inbound capture')).toMatchObject({
      value: 'istio-init -z 15006',
      objects: ['virtualInbound', 'inbound|8080||'],
    });
    expect(byWhat.get('UID excluded')?.value).toBe('istio-init -u 1337');
    expect([...byWhat.keys()]).toContain('inbound 15021 excluded');
    expect(answer.differences).toEqual([]);
  });

  it('two proxies: the differences, 10081 against 15001 and the catch-all, and why', async () => {
    const answer = await explainProxies(parts, { proxies: [LAB, ISTIOD], admins: [] });
    expect(checkJson(EXPLAINED, answer)).toEqual([]);
    if (answer instanceof Refusal) throw new Error(answer.error);
    expect(answer.configurations.map((c) => c.unknownDestination)).toEqual([
      'BlackHoleCluster',
      'PassthroughCluster',
    ]);
    expect(answer.differences[0]).toContain(
      'outbound: lab-0.default virtualOutbound on 10081, orders-0.default virtualOutbound on 15001',
    );
    expect(answer.differences.some((d) => d.includes('outboundTrafficPolicy ALLOW_ANY'))).toBe(
      true,
    );
  });

  it('503 naming the admin API that does not answer', async () => {
    const answer = await explainProxies(parts, { proxies: [], admins: ['127.0.0.1:19009'] });
    expect(answer).toBeInstanceOf(Refusal);
    expect((answer as Refusal).status).toBe(503);
    expect((answer as Refusal).problems).toEqual([
      { path: 'admin[0]', message: 'http://127.0.0.1:19009/config_dump: connect ECONNREFUSED' },
    ]);
  });
});

describe('UiAdmins.addressOf: the admin API explain reads a proxy through', () => {
  const admins = new UiAdmins({ onSample: () => undefined, onChange: () => undefined });

  it('is the node metadata’s ENVOY_ADMIN_ADDRESS for a proxy on loopback', () => {
    const s = stream(LAB, { ENVOY_ADMIN_ADDRESS: '127.0.0.1:15000' });
    expect(admins.addressOf(s)).toBe('http://127.0.0.1:15000');
  });

  it('is not an address on another host than the stream’s (as for polling)', () => {
    const s = stream(LAB, { ENVOY_ADMIN_ADDRESS: '10.9.9.9:15000' });
    expect(admins.addressOf(s)).toBeUndefined();
  });

  it('falls back to PROXY_CONFIG.proxyAdminPort on 127.0.0.1, else none', () => {
    expect(admins.addressOf(stream(LAB, { PROXY_CONFIG: { proxyAdminPort: 15000 } }))).toBe(
      'http://127.0.0.1:15000',
    );
    expect(admins.addressOf(stream(LAB))).toBeUndefined();
  });
});
