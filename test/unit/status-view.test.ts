import { describe, expect, it } from 'vitest';
import type { StreamDetail } from '../../src/debug/streamz-view.js';
import { adminFromMetadata, adminUrl } from '../../src/envoy/admin-address.js';
import type { StatusReport } from '../../src/status/status-report.js';
import { renderStatus } from '../../src/cli/client/status-view.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';

describe('the admin address of a proxy', () => {
  it('comes from ENVOY_ADMIN_ADDRESS, else PROXY_CONFIG.proxyAdminPort on loopback', () => {
    expect(adminFromMetadata({ ENVOY_ADMIN_ADDRESS: '10.0.0.1:15000' })).toEqual({
      url: 'http://10.0.0.1:15000',
      source: 'metadata',
    });
    expect(adminFromMetadata({ PROXY_CONFIG: { proxyAdminPort: 15000 } })).toEqual({
      url: 'http://127.0.0.1:15000',
      source: 'proxy-config',
    });
    expect(adminFromMetadata({ PROXY_CONFIG: { proxyAdminPort: 'x' } })).toBeUndefined();
    expect(adminFromMetadata({})).toBeUndefined();
  });

  it('accepts host:port, a bare port or a URL', () => {
    expect(adminUrl('127.0.0.1:9901')).toBe('http://127.0.0.1:9901');
    expect(adminUrl('9901')).toBe('http://127.0.0.1:9901');
    expect(adminUrl('http://[::1]:9901/')).toBe('http://[::1]:9901');
  });
});

const stream: StreamDetail = {
  connectionId: 'orders-v1-0.default-1',
  nodeId: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
  proxy: 'orders-v1-0.default',
  namespace: 'default',
  cluster: 'orders.default',
  clusterId: 'Kubernetes',
  istioVersion: '1.24.0',
  protocol: 'sotw',
  peer: '127.0.0.1:40000',
  connectedAt: '2026-08-22T20:00:00.000Z',
  metadata: {},
  types: [
    {
      type: 'CDS',
      typeUrl: CLUSTER_TYPE,
      status: 'SYNCED',
      names: '*',
      sent: { version: 'v/1', nonce: 'n1', at: '2026-08-22T20:00:00.000Z', count: 2 },
      acked: { version: 'v/1', nonce: 'n1', at: '2026-08-22T20:00:00.000Z' },
    },
    {
      type: 'LDS',
      typeUrl: LISTENER_TYPE,
      status: 'ERROR',
      names: '*',
      sent: { version: 'v/2', nonce: 'n2', at: '2026-08-22T20:00:01.000Z', count: 2 },
      nack: {
        version: 'v/2',
        nonce: 'n2',
        keptVersion: 'v/1',
        code: 13,
        message: "unknown cluster 'x'",
        at: '2026-08-22T20:00:01.000Z',
      },
    },
  ],
};

describe('renderStatus', () => {
  it("shows the mock's view beside the Envoy's counters, and the last NACK", () => {
    const report: StatusReport = {
      at: '2026-08-22T20:00:05.000Z',
      mock: { address: '127.0.0.1:15014', reachable: true, withheld: false },
      proxies: [
        {
          name: stream.proxy,
          nodeId: stream.nodeId,
          mock: stream,
          envoy: {
            admin: 'http://127.0.0.1:15000',
            source: 'flag',
            reachable: true,
            state: 'LIVE',
            stats: {
              'control_plane.connected_state': 1,
              'cluster_manager.cds.update_success': 1,
              'cluster_manager.cds.update_rejected': 0,
              'cluster_manager.cds.version_text': 'v/1',
              'listener_manager.lds.update_success': 1,
              'listener_manager.lds.update_rejected': 1,
              'listener_manager.lds.version_text': 'v/1',
            },
          },
        },
      ],
    };
    expect(renderStatus(report).split('\n')).toEqual([
      'mock-istiod 127.0.0.1:15014: 1 connected   20:00:05',
      '',
      'orders-v1-0.default  (sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local)',
      '  mock:  orders-v1-0.default-1, sotw, from 127.0.0.1:40000',
      '  envoy: http://127.0.0.1:15000: LIVE, control_plane.connected_state 1',
      '  TYPE   MOCK     SENT   ACKED   update_success   update_rejected   version_text',
      '  CDS    SYNCED   v/1    v/1     1                0                 v/1',
      '  LDS    ERROR    v/2    -       1                1                 v/1',
      "  last NACK of LDS v/2 at 20:00:01: Internal: unknown cluster 'x'",
      '',
    ]);
  });

  it('shows an Envoy the mock no longer knows, and a mock that is down', () => {
    const text = renderStatus({
      at: '2026-08-22T20:00:05.000Z',
      mock: { address: '127.0.0.1:15014', reachable: false, error: 'cannot reach (ECONNREFUSED)' },
      proxies: [
        {
          name: 'orders-v1-0.default',
          envoy: {
            admin: 'http://127.0.0.1:15000',
            source: 'flag',
            reachable: true,
            state: 'LIVE',
            stats: { 'control_plane.connected_state': 0 },
          },
        },
      ],
    });
    expect(text).toContain('mock-istiod 127.0.0.1:15014: not reachable');
    expect(text).toContain('  mock:  not connected');
    expect(text).toContain('LIVE, control_plane.connected_state 0');
  });
});
