/**
 * What the real pilot-agent needs around it, as a sidecar container has it: its files, at
 * paths relative to its working directory (the container's root in a pod), and its
 * environment (`PROXY_CONFIG` and the pod's variables).
 *
 * | file                                            | in a pod                                 |
 * | ----------------------------------------------- | ---------------------------------------- |
 * | `var/lib/istio/envoy/envoy_bootstrap_tmpl.json` | Istio's bootstrap template, in the image |
 * | `var/run/secrets/istio/root-cert.pem`           | the `istio-ca-root-cert` ConfigMap       |
 * | `var/run/secrets/tokens/istio-token`            | the projected token (audience istio-ca)  |
 * | `etc/istio/proxy/`                              | where pilot-agent writes `envoy-rev.json` |
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PILOT_AGENT_FILES = {
  bootstrapTemplate: 'var/lib/istio/envoy/envoy_bootstrap_tmpl.json',
  rootCert: 'var/run/secrets/istio/root-cert.pem',
  token: 'var/run/secrets/tokens/istio-token',
  proxyConfigDir: 'etc/istio/proxy',
  /** The bootstrap pilot-agent writes and starts Envoy with. */
  envoyBootstrap: 'etc/istio/proxy/envoy-rev.json',
} as const;

/** The four ports a sidecar listens on, each of which pilot-agent lets us move. */
export interface PilotAgentPorts {
  /** Envoy's admin API: `ProxyConfig.proxyAdminPort` (15000). */
  admin: number;
  /** pilot-agent's status port (all interfaces): `ProxyConfig.statusPort` (15020). */
  status: number;
  /** Envoy's readiness listener (all interfaces): `ENVOY_STATUS_PORT` (15021). */
  readiness: number;
  /** Envoy's Prometheus listener: `ENVOY_PROMETHEUS_PORT` (15090). */
  prometheus: number;
}

export interface PilotAgentTree {
  bootstrapTemplate: string;
  /** PEM: the mock's root certificate. */
  rootCert: string;
  /** The pod's token; without one pilot-agent's CSR is refused. */
  token: string | undefined;
}

/** Writes the files into `dir` (which must exist), owner-only where they are secrets. */
export function layOutPilotAgentTree(dir: string, tree: PilotAgentTree): void {
  const path = (relative: string) => join(dir, relative);
  const { bootstrapTemplate, rootCert, token, proxyConfigDir } = PILOT_AGENT_FILES;
  for (const file of [bootstrapTemplate, rootCert, token]) {
    mkdirSync(dirname(path(file)), { recursive: true });
  }
  mkdirSync(path(proxyConfigDir), { recursive: true });
  copyFileSync(tree.bootstrapTemplate, path(PILOT_AGENT_FILES.bootstrapTemplate));
  writeFileSync(path(PILOT_AGENT_FILES.rootCert), tree.rootCert);
  if (tree.token !== undefined) {
    writeFileSync(path(PILOT_AGENT_FILES.token), `${tree.token}\n`, { mode: 0o600 });
  }
}

export interface ProxyConfigInput {
  discoveryAddress: string;
  envoyBin: string;
  ports: PilotAgentPorts;
  /** Envoy's worker threads (`--concurrency`). */
  concurrency: number;
  /** Fields of the user's own `ProxyConfig`, laid over ours (theirs win). */
  overrides: Record<string, unknown>;
}

/**
 * `PROXY_CONFIG`, mesh config's `defaultConfig` for this one proxy. `proxyStatsMatcher`
 * brings back the `control_plane.*` stats Istio's bootstrap drops (the `connected_state`
 * lesson needs them); `terminationDrainDuration` 0s stops Envoy at once on SIGTERM (a pod
 * drains 5 s); Prometheus listens on loopback only (a pod's on all interfaces).
 */
export function makeProxyConfig(input: ProxyConfigInput): Record<string, unknown> {
  return {
    discoveryAddress: input.discoveryAddress,
    binaryPath: input.envoyBin,
    concurrency: input.concurrency,
    proxyAdminPort: input.ports.admin,
    statusPort: input.ports.status,
    proxyStatsMatcher: { inclusionPrefixes: ['control_plane'] },
    terminationDrainDuration: '0s',
    proxyMetadata: { METRICS_LOCALHOST_ACCESS_ONLY: 'true' },
    ...input.overrides,
  };
}

/** The environment pilot-agent runs with, beside the pod's own variables. */
export function pilotAgentEnv(
  proxyConfig: Record<string, unknown>,
  ports: PilotAgentPorts,
  xdsMode: 'sotw' | 'delta',
): Record<string, string> {
  return {
    PROXY_CONFIG: JSON.stringify(proxyConfig),
    ENVOY_STATUS_PORT: String(ports.readiness),
    ENVOY_PROMETHEUS_PORT: String(ports.prometheus),
    ISTIO_DELTA_XDS: xdsMode === 'delta' ? 'true' : 'false',
  };
}
