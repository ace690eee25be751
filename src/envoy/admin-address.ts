/**
 * Where a proxy's Envoy admin API is, from what the mock knows of it. The `status` command
 * and the live page both read it this way:
 *
 * - `ENVOY_ADMIN_ADDRESS` in the node metadata (`host:port`): mock-istiod's own key. Set
 *   `ISTIO_META_ENVOY_ADMIN_ADDRESS=host:port` in the pod's environment, or
 *   `metadata.ENVOY_ADMIN_ADDRESS` in a bootstrap. Every bootstrap the project writes
 *   (`bootstrap`, `agent`, `pilot-agent`, `envoy-configs/`) sets it.
 * - else Istio's own `PROXY_CONFIG.proxyAdminPort`, on 127.0.0.1 (a sidecar's admin API only
 *   listens on loopback, so that works when the mock runs on the proxy's host).
 */
import { ADMIN_ADDRESS_KEY } from '../bootstrap/sidecar-options.js';

export type AdminSource = 'flag' | 'metadata' | 'proxy-config';

export interface AdminAddress {
  url: string;
  source: AdminSource;
}

/** The node metadata key naming a proxy's admin address (`host:port`). */
export { ADMIN_ADDRESS_KEY };

/** `127.0.0.1:15000`, `[::1]:15000`, `15000` or a URL → a URL. */
export function adminUrl(value: string): string {
  const trimmed = value.trim();
  if (/^https?:\/\//.test(trimmed)) return trimmed.replace(/\/+$/, '');
  if (/^\d+$/.test(trimmed)) return `http://127.0.0.1:${trimmed}`;
  return `http://${trimmed}`;
}

export function adminFromMetadata(metadata: Record<string, unknown>): AdminAddress | undefined {
  const explicit = metadata[ADMIN_ADDRESS_KEY];
  if (typeof explicit === 'string' && explicit.trim() !== '') {
    return { url: adminUrl(explicit), source: 'metadata' };
  }
  const proxyConfig = metadata.PROXY_CONFIG;
  if (typeof proxyConfig === 'object' && proxyConfig !== null) {
    const port = Number((proxyConfig as { proxyAdminPort?: unknown }).proxyAdminPort);
    if (Number.isInteger(port) && port > 0 && port <= 65535) {
      return { url: `http://127.0.0.1:${port}`, source: 'proxy-config' };
    }
  }
  return undefined;
}
