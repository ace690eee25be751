/**
 * The text `mock-istiod status` prints: per proxy, the mock's view of each type (status,
 * version sent, version ACKed) beside the Envoy's own counters for CDS and LDS, then the
 * last NACK. Built for a projector: one block per proxy, Envoy's stat names as they are.
 */
import { RESOURCE_TYPES } from '../../core/types/registry.js';
import type { TypeDetail } from '../../debug/streamz-view.js';
import { grpcCodeName } from '../../metrics/grpc-codes.js';
import type { EnvoySide } from '../../envoy/admin-status.js';
import type { ProxyReport, StatusReport } from '../../status/status-report.js';
import { formatTable } from './tabwriter.js';

/** Types whose subscription Envoy counts in stats of its own: CDS and LDS. */
const ENVOY_PREFIX = new Map(
  RESOURCE_TYPES.flatMap((t) => (t.envoyStats ? [[t.shortName, t.envoyStats] as const] : [])),
);

function headline(report: StatusReport): string {
  const { mock } = report;
  const time = report.at.slice(11, 19);
  if (!mock.reachable)
    return `mock-istiod ${mock.address}: not reachable   ${time}\n  ${mock.error ?? ''}`;
  const connected = report.proxies.filter((p) => p.mock).length;
  const held = mock.withheld ? ', responses withheld' : '';
  return `mock-istiod ${mock.address}: ${connected} connected${held}   ${time}`;
}

function envoyLine(envoy: EnvoySide | undefined): string {
  if (!envoy) {
    return '  envoy: admin address unknown (pass --admin, or set ISTIO_META_ENVOY_ADMIN_ADDRESS)';
  }
  if (!envoy.reachable) return `  envoy: ${envoy.admin}: not reachable (${envoy.error ?? '?'})`;
  const connected = envoy.stats['control_plane.connected_state'] ?? '?';
  return `  envoy: ${envoy.admin}: ${envoy.state ?? '?'}, control_plane.connected_state ${connected}`;
}

function stat(envoy: EnvoySide | undefined, type: string, name: string): string {
  const prefix = ENVOY_PREFIX.get(type);
  if (!prefix || !envoy?.reachable) return '-';
  const value = envoy.stats[`${prefix}.${name}`];
  return value === undefined || value === '' ? '-' : String(value);
}

function typeRows(proxy: ProxyReport): string[][] {
  const types: (TypeDetail | { type: string })[] = [...(proxy.mock?.types ?? [])];
  for (const type of ENVOY_PREFIX.keys()) {
    if (!types.some((t) => t.type === type)) types.push({ type });
  }
  const header = [
    'TYPE',
    'MOCK',
    'SENT',
    'ACKED',
    'update_success',
    'update_rejected',
    'version_text',
  ];
  const rows = types.map((t) => {
    const detail = 'status' in t ? t : undefined;
    return [
      t.type,
      detail ? detail.status : proxy.mock ? 'IGNORED' : '-',
      detail?.sent?.version ?? '-',
      detail?.acked?.version ?? '-',
      stat(proxy.envoy, t.type, 'update_success'),
      stat(proxy.envoy, t.type, 'update_rejected'),
      stat(proxy.envoy, t.type, 'version_text'),
    ];
  });
  return [header, ...rows];
}

function nackLines(proxy: ProxyReport): string[] {
  return (proxy.mock?.types ?? []).flatMap((t) =>
    t.nack
      ? [
          `  last NACK of ${t.type} ${t.nack.version} at ${t.nack.at.slice(11, 19)}: ${grpcCodeName(t.nack.code)}: ${t.nack.message.trim()}`,
        ]
      : [],
  );
}

function proxyBlock(proxy: ProxyReport): string {
  const title =
    proxy.nodeId && proxy.nodeId !== proxy.name ? `${proxy.name}  (${proxy.nodeId})` : proxy.name;
  const mock = proxy.mock
    ? `  mock:  ${proxy.mock.connectionId}, ${proxy.mock.protocol}, from ${proxy.mock.peer}`
    : '  mock:  not connected';
  const table = formatTable(typeRows(proxy), 3)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`);
  return [title, mock, envoyLine(proxy.envoy), ...table, ...nackLines(proxy)].join('\n');
}

export function renderStatus(report: StatusReport): string {
  const blocks = report.proxies.map(proxyBlock);
  const body =
    blocks.length > 0
      ? blocks.join('\n\n')
      : 'no proxies (none connected, none given with --admin)';
  return `${headline(report)}\n\n${body}\n`;
}
