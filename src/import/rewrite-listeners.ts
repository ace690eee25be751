/**
 * Listeners: addresses to loopback, ports moved (a captured 15001 or 80 may be taken or
 * privileged here), listeners that only iptables could reach (`bind_to_port: false`) bound,
 * and what still needs iptables named: `use_original_dst` and the `original_dst` listener
 * filter read the destination a connection had before it was redirected.
 */
import { isIP } from 'node:net';
import { objectsIn } from '../util/guards.js';
import { child, formatHostPort, type Json } from './json-walk.js';
import type { ImportReport } from './report.js';

export interface ListenerRewrite {
  /** Socket addresses → 127.0.0.1 (IPv4 and names) or ::1 (IPv6). */
  loopback: boolean;
  /** Added to every listener port not in `ports`. */
  portOffset: number;
  /** Captured port → port here. */
  ports: ReadonlyMap<number, number>;
  /** `bind_to_port: false` listeners (reached only through iptables and virtualOutbound) bound. */
  bindVirtual: boolean;
}

export function rewriteListener(
  listener: Json,
  path: string,
  rewrite: ListenerRewrite,
  report: ImportReport,
): void {
  const name = String(listener.name);
  const address = child(listener, 'address');
  if (address) rewriteAddress(address, name, `${path}.address`, rewrite, report);
  objectsIn(listener.additional_addresses).forEach((extra, i) => {
    const inner = child(extra, 'address');
    if (inner)
      rewriteAddress(inner, name, `${path}.additional_addresses[${i}].address`, rewrite, report);
  });
  if (listener.bind_to_port === false) {
    if (rewrite.bindVirtual) {
      delete listener.bind_to_port;
      report.rewrites.push({
        path: `${path}.bind_to_port`,
        message: `${name}: false → bound (reachable without iptables)`,
      });
    } else
      report.cannotWork.push({
        path: `${path}.bind_to_port`,
        message: `${name} is not bound: only iptables and virtualOutbound's use_original_dst reach it (--bind-virtual-listeners binds it)`,
      });
  }
  reportIptablesOnly(listener, name, path, report);
}

function rewriteAddress(
  address: Json,
  name: string,
  path: string,
  rewrite: ListenerRewrite,
  report: ImportReport,
): void {
  const socket = child(address, 'socket_address');
  if (!socket) return;
  const from = { address: String(socket.address), port: Number(socket.port_value ?? 0) };
  const to = { ...from };
  if (rewrite.loopback) to.address = isIP(from.address) === 6 ? '::1' : '127.0.0.1';
  to.port =
    rewrite.ports.get(from.port) ??
    (rewrite.portOffset !== 0 ? from.port + rewrite.portOffset : from.port);
  if (to.port > 65535 || to.port < 0) {
    report.cannotWork.push({
      path: `${path}.socket_address.port_value`,
      message: `${name}: ${from.port} moved out of range (${to.port}); kept`,
    });
    to.port = from.port;
  }
  if (to.address === from.address && to.port === from.port) return;
  socket.address = to.address;
  socket.port_value = to.port;
  report.rewrites.push({
    path: `${path}.socket_address`,
    message: `listener ${name} ${formatHostPort(from)} → ${formatHostPort(to)}`,
  });
}

function reportIptablesOnly(
  listener: Json,
  name: string,
  path: string,
  report: ImportReport,
): void {
  if (listener.use_original_dst === true)
    report.cannotWork.push({
      path: `${path}.use_original_dst`,
      message: `${name} hands connections to the listener of their original destination, which only iptables sets: a connection made to it directly stays on its own filter chains`,
    });
  objectsIn(listener.listener_filters).forEach((filter, i) => {
    const typed = child(filter, 'typed_config')?.['@type'];
    const type = typeof typed === 'string' ? typed : '';
    if (filter.name === 'envoy.filters.listener.original_dst' || type.endsWith('.OriginalDst'))
      report.cannotWork.push({
        path: `${path}.listener_filters[${i}]`,
        message: `${name} matches filter chains on the original destination, which only iptables sets: direct connections see the listener's own address and port`,
      });
  });
  if (listener.transparent === true)
    report.cannotWork.push({
      path: `${path}.transparent`,
      message: `${name} is transparent (TPROXY): Envoy needs CAP_NET_ADMIN to bind it`,
    });
}

/**
 * Bound listeners sharing one address and port: Envoy refuses all but the first. An API
 * listener (a proxyless gRPC client's target) binds nothing, whatever address it names.
 */
export function duplicateAddresses(
  listeners: readonly { listener: Json; path: string }[],
): { path: string; message: string }[] {
  const seen = new Map<string, string>();
  const problems: { path: string; message: string }[] = [];
  for (const { listener, path } of listeners) {
    if (listener.bind_to_port === false || listener.api_listener !== undefined) continue;
    const socket = child(child(listener, 'address') ?? {}, 'socket_address');
    if (!socket || socket.port_value === 0 || socket.port_value === undefined) continue;
    const key = formatHostPort({
      address: String(socket.address),
      port: Number(socket.port_value),
    });
    const first = seen.get(key);
    if (first)
      problems.push({
        path: `${path}.address`,
        message: `${String(listener.name)} binds ${key} as ${first} does: Envoy refuses it (move one with --listener-port)`,
      });
    else seen.set(key, String(listener.name));
  }
  return problems;
}
