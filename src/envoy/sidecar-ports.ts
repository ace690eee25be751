/**
 * A sidecar's four ports, as `agent` (our stand-in for pilot-agent) and the real pilot-agent
 * both take them: a real sidecar's where none is given, and a free port for each 0 the
 * caller cannot leave to the process that binds it.
 */
import { SIDECAR_PORTS } from '../bootstrap/sidecar-options.js';
import { freePort } from '../util/ports.js';

export interface SidecarPorts {
  /** Envoy's admin API (15000). */
  admin: number;
  /** pilot-agent's status server (15020). */
  status: number;
  /** Envoy's readiness listener (15021). */
  readiness: number;
  /** Envoy's Prometheus listener (15090). */
  prometheus: number;
}

/**
 * The ports asked for, 15000/15020/15021/15090 where not given; each of `freeFor` that is 0
 * becomes a free port, distinct from the others.
 */
export async function resolveSidecarPorts(
  requested: Partial<SidecarPorts>,
  freeFor: readonly (keyof SidecarPorts)[],
): Promise<SidecarPorts> {
  const ports: SidecarPorts = {
    admin: requested.admin ?? SIDECAR_PORTS.admin,
    status: requested.status ?? SIDECAR_PORTS.agentStatus,
    readiness: requested.readiness ?? SIDECAR_PORTS.readiness,
    prometheus: requested.prometheus ?? SIDECAR_PORTS.prometheus,
  };
  const taken = new Set(Object.values(ports).filter((port) => port !== 0));
  for (const key of freeFor) {
    if (ports[key] !== 0) continue;
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    ports[key] = port;
  }
  return ports;
}
