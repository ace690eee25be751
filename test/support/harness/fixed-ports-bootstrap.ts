/**
 * A bootstrap of envoy-configs/ (the README's "Point your own Envoy at it" file,
 * `envoy-configs/sidecar-sotw.yaml`, or another) as it is, but for the sidecar's fixed ports,
 * moved to free ones so that tests can run side by side: 15012 (discovery) to the mock's xDS
 * port, 15000 (admin), 15020 (agent), 15021 (readiness) and 15090 (Prometheus) to ports the OS
 * chose. Used by test/e2e/ui-page.test.ts and by the docs' e2e session (test/docs/sh-session.ts),
 * which runs `.venv/bin/envoy -c envoy-configs/sidecar-sotw.yaml` as this twin.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { freePorts } from '../../../src/util/ports.js';

/** The sidecar's fixed ports in envoy-configs/*.yaml (discovery, admin, agent, readiness, Prometheus). */
export const SIDECAR_FIXED_PORTS = [15012, 15000, 15020, 15021, 15090] as const;

export interface MovedBootstrap {
  /** Where the moved bootstrap was written. */
  path: string;
  /** Envoy's admin port in it (15000's place). */
  admin: number;
}

/**
 * Reads `source`, moves its fixed ports (15012 to `xdsPort`), applies `edit`, and writes the
 * result to `out`.
 */
export async function moveFixedPorts(
  source: string,
  xdsPort: number,
  out: string,
  edit: (text: string) => string = (text) => text,
): Promise<MovedBootstrap> {
  const [admin, agent, readiness, prometheus] = (await freePorts(4)) as [
    number,
    number,
    number,
    number,
  ];
  const moved = new Map<number, number>([
    [15012, xdsPort],
    [15000, admin],
    [15020, agent],
    [15021, readiness],
    [15090, prometheus],
  ]);
  const pattern = new RegExp(`\\b(${SIDECAR_FIXED_PORTS.join('|')})\\b`, 'g');
  const original = readFileSync(source, 'utf8');
  writeFileSync(out, edit(original.replace(pattern, (port) => String(moved.get(Number(port))))));
  return { path: out, admin };
}
