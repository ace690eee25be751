import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../src/cli/client/human-duration.js';
import {
  errorLines,
  proxyStatusJson,
  proxyStatusTable,
  sortedProxies,
  statusCell,
  type SyncStatusJson,
} from '../../src/cli/client/proxy-status-view.js';
import { formatTable } from '../../src/cli/client/tabwriter.js';
import { CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('humanDuration (k8s apimachinery)', () => {
  it.each([
    [-5 * S, '<invalid>'],
    [-1 * S, '0s'],
    [0, '0s'],
    [59 * S, '59s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [2 * M + 5 * S, '2m5s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 30 * M, '7h30m'],
    [47 * H, '47h'],
    [48 * H, '2d'],
    [7 * 24 * H + 5 * H, '7d5h'],
    [8 * 24 * H, '8d'],
    [3 * 365 * 24 * H, '3y'],
    [3 * 365 * 24 * H + 24 * H, '3y1d'],
    [9 * 365 * 24 * H, '9y'],
  ])('%d ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('formatTable (Go tabwriter, padding 5)', () => {
  it('pads every column but the last to its widest cell plus the padding', () => {
    expect(
      formatTable([
        ['NAME', 'CLUSTER', 'V'],
        ['proxy1', 'c1', '1.1'],
      ]),
    ).toBe('NAME       CLUSTER     V\nproxy1     c1          1.1\n');
  });
});

const now = Date.parse('2026-08-22T20:10:00Z');
const statuses: SyncStatusJson[] = [
  {
    cluster_id: 'Kubernetes',
    proxy: 'orders-v1-0.default',
    istio_version: '1.24.0',
    resources: {
      [CLUSTER_TYPE]: { sent: 'n1', acked: 'n1', sentTime: '2026-08-22T20:08:00.000Z' },
      [LISTENER_TYPE]: {
        sent: 'n2',
        acked: 'n0',
        sentTime: '2026-08-22T20:09:55.000Z',
        lastError: "route: unknown cluster 'x'",
      },
      [ROUTE_TYPE]: { sentTime: '0001-01-01T00:00:00Z' },
    },
  },
  {
    cluster_id: 'Kubernetes',
    proxy: 'a-0.shop',
    istio_version: '1.24.0',
    resources: { [CLUSTER_TYPE]: { sent: 'n9', sentTime: '2026-08-22T20:09:58.000Z' } },
  },
];

describe('proxy-status cells', () => {
  it('follow istioctl: status, then the age of the last response; NOT SENT and IGNORED bare', () => {
    const resources = statuses[0]?.resources ?? {};
    expect(statusCell(resources[CLUSTER_TYPE], now)).toBe('SYNCED (2m)');
    expect(statusCell(resources[LISTENER_TYPE], now)).toBe('ERROR (5s)');
    expect(statusCell(resources[ROUTE_TYPE], now)).toBe('NOT SENT');
    expect(statusCell(undefined, now)).toBe('IGNORED');
    expect(statusCell({ sent: 'a', sentTime: '2026-08-22T20:09:00Z' }, now)).toBe('STALE (60s)');
  });

  it('prints the table sorted by proxy, filtered by a substring of the proxy id', () => {
    const table = proxyStatusTable(sortedProxies(statuses), '127.0.0.1:15014', now);
    expect(table.split('\n')).toEqual([
      'NAME                    CLUSTER        CDS             LDS            EDS         RDS          ECDS        ISTIOD              VERSION',
      'a-0.shop                Kubernetes     STALE (2s)      IGNORED        IGNORED     IGNORED      IGNORED     127.0.0.1:15014     1.24.0',
      'orders-v1-0.default     Kubernetes     SYNCED (2m)     ERROR (5s)     IGNORED     NOT SENT     IGNORED     127.0.0.1:15014     1.24.0',
      '',
    ]);
    expect(sortedProxies(statuses, 'orders').map((s) => s.proxy)).toEqual(['orders-v1-0.default']);
    expect(errorLines(statuses)).toEqual([
      "orders-v1-0.default LDS rejected: route: unknown cluster 'x'",
    ]);
  });

  it("gives istioctl's JSON: ClientConfigs with CSDS statuses and the error details", () => {
    const json = proxyStatusJson(statuses.slice(0, 1)) as {
      resources: { node: unknown; genericXdsConfigs: unknown[] }[];
    };
    expect(json.resources[0]?.node).toEqual({
      id: 'orders-v1-0.default',
      metadata: { CLUSTER_ID: 'Kubernetes', ISTIO_VERSION: '1.24.0' },
    });
    expect(json.resources[0]?.genericXdsConfigs).toEqual([
      {
        typeUrl: CLUSTER_TYPE,
        configStatus: 'SYNCED',
        lastUpdated: '2026-08-22T20:08:00.000Z',
      },
      {
        typeUrl: LISTENER_TYPE,
        configStatus: 'ERROR',
        lastUpdated: '2026-08-22T20:09:55.000Z',
        errorState: {
          lastUpdateAttempt: '2026-08-22T20:09:55.000Z',
          details: "route: unknown cluster 'x'",
        },
      },
      { typeUrl: ROUTE_TYPE, configStatus: 'NOT_SENT' },
    ]);
  });
});
