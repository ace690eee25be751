/**
 * What the import tests share: the Istio-shaped fixture on free ports (with the SDS secrets a
 * pod would get from pilot-agent, made of a TLS directory's files), a sidecar Envoy against
 * a given xDS port, and a summary of a config_dump's dynamic resources to compare two Envoys
 * by (names, types, addresses, filter chains).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { makeSidecarBootstrap } from '../../../src/bootstrap/sidecar.js';
import { startEnvoy, type EnvoyProcess } from '../../../src/envoy/envoy-process.js';
import type { CaFiles } from '../../../src/import/rewrite-sds.js';
import { prepareTlsMaterial } from '../../../src/tls/tls-material.js';
import { TLS_FILES } from '../../../src/tls/tls-files.js';
import { isObject, objectsIn } from '../../../src/util/guards.js';
import { SECRET_TYPE } from '../../../src/xds/type-urls.js';

export const ISTIO_FIXTURE = new URL('../../fixtures/import/istio-sidecar.yaml', import.meta.url)
  .pathname;
export const ISTIOCTL_FIXTURE = new URL('../../fixtures/import/istioctl-all.json', import.meta.url)
  .pathname;

/** The fixture's own ports, and where a test puts them. */
export interface IstioPorts {
  inbound: number;
  outbound: number;
  app: number;
}

const FIXTURE_PORTS: IstioPorts = { inbound: 15006, outbound: 19080, app: 8080 };

/** A TLS directory made for one test (root, serving certificate for localhost, keys). */
export async function makeTlsDir(): Promise<{ dir: string; files: CaFiles; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-import-'));
  const made = await prepareTlsMaterial({
    dir,
    hosts: ['localhost', '127.0.0.1'],
    trustDomain: 'cluster.local',
  });
  if (!made.ok) throw new Error(`TLS directory: ${JSON.stringify(made.problems)}`);
  const files = {
    rootCert: join(dir, TLS_FILES.rootCert),
    certChain: join(dir, TLS_FILES.certChain),
    key: join(dir, TLS_FILES.key),
  };
  return { dir, files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The fixture with its ports moved, and the secrets `default` and `ROOTCA` from `files`. */
export function istioSidecarResources(ports: IstioPorts, files: CaFiles): unknown[] {
  const doc = parse(readFileSync(ISTIO_FIXTURE, 'utf8'), { merge: true }) as {
    resources: unknown[];
  };
  const moved = new Map([
    [FIXTURE_PORTS.inbound, ports.inbound],
    [FIXTURE_PORTS.outbound, ports.outbound],
    [FIXTURE_PORTS.app, ports.app],
  ]);
  // The fixture's YAML anchors share objects: copy first, so each port moves once.
  const resources = structuredClone(doc.resources);
  movePorts(resources, moved);
  const secrets = [
    {
      '@type': SECRET_TYPE,
      name: 'default',
      tls_certificate: {
        certificate_chain: { filename: files.certChain },
        private_key: { filename: files.key },
      },
    },
    {
      '@type': SECRET_TYPE,
      name: 'ROOTCA',
      validation_context: { trusted_ca: { filename: files.rootCert } },
    },
  ];
  return [...resources, ...secrets];
}

function movePorts(value: unknown, moved: ReadonlyMap<number, number>): void {
  if (Array.isArray(value)) return value.forEach((v) => movePorts(v, moved));
  if (!isObject(value)) return;
  if (typeof value.port_value === 'number')
    value.port_value = moved.get(value.port_value) ?? value.port_value;
  for (const child of Object.values(value)) movePorts(child, moved);
}

export function startSidecarEnvoy(
  xdsPort: number,
  xdsMode: 'sotw' | 'delta',
): Promise<EnvoyProcess> {
  return startEnvoy({
    bootstrap: makeSidecarBootstrap({ discoveryPort: xdsPort, adminPort: 0, xdsMode }),
  });
}

/** What two Envoys must agree on: dynamic listeners, clusters and routes, as names and shapes. */
export interface DumpSummary {
  listeners: unknown[];
  clusters: unknown[];
  routes: unknown[];
}

type Json = Record<string, unknown>;

function section(dump: unknown, name: string): Json {
  const configs = isObject(dump) ? objectsIn(dump.configs) : [];
  return configs.find((c) => c['@type'] === `type.googleapis.com/envoy.admin.v3.${name}`) ?? {};
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

export function summarizeDump(dump: unknown): DumpSummary {
  const listeners = objectsIn(section(dump, 'ListenersConfigDump').dynamic_listeners).map((l) => {
    const listener = (l.active_state as Json | undefined)?.listener as Json;
    const socket = (listener.address as Json).socket_address as Json;
    return {
      name: String(listener.name),
      address: `${String(socket.address)}:${String(socket.port_value)}`,
      direction: listener.traffic_direction,
      chains: objectsIn(listener.filter_chains).map((chain) => ({
        name: chain.name,
        match: chain.filter_chain_match,
        filters: objectsIn(chain.filters).map((f) => f.name),
        tls: (chain.transport_socket as Json | undefined)?.name,
      })),
    };
  });
  const clusters = objectsIn(section(dump, 'ClustersConfigDump').dynamic_active_clusters).map(
    (c) => {
      const cluster = c.cluster as Json;
      return {
        name: String(cluster.name),
        type: cluster.type,
        tls: (cluster.transport_socket as Json | undefined)?.name,
      };
    },
  );
  const routes = objectsIn(section(dump, 'RoutesConfigDump').dynamic_route_configs).map((r) => {
    const route = r.route_config as Json;
    return {
      name: String(route.name),
      virtualHosts: objectsIn(route.virtual_hosts).map((v) => v.name),
    };
  });
  return {
    listeners: listeners.sort(byName),
    clusters: clusters.sort(byName),
    routes: routes.sort(byName),
  };
}
