/**
 * The default resource set: the sidecar lab of the course material (shared/seeds), served
 * over ADS instead of written into a static bootstrap.
 *
 * - `virtualInbound`  127.0.0.1:15006, INBOUND, every path → `inbound|8101||` (the app);
 * - `virtualOutbound` 127.0.0.1:10081, OUTBOUND, every path → `BlackHoleCluster`;
 * - `BlackHoleCluster` STATIC with no endpoints (so: 503 `no healthy upstream`);
 * - `inbound|8101||` STATIC, one endpoint 127.0.0.1:8101.
 *
 * Named variants (`LAB_VARIANTS`, `serve --lab <name>`): `eds-rds` (endpoints over EDS, routes
 * over RDS) and `mtls` (virtualInbound terminates Istio's mutual TLS with SDS secrets).
 *
 * With `outbound` set, virtualOutbound sends every path to that service instead of the black
 * hole, through Istio's cluster `outbound|<port>||<host>` (Envoy resolves the host); with `mtls`
 * too, in Istio's mutual TLS, as two sidecars of one mesh talk.
 */
import { makeDnsCluster, makeStaticCluster } from './cluster.js';
import type { EnvoyResource } from './types.js';
import { makeClusterLoadAssignment, makeEdsCluster } from './endpoint.js';
import { makeHttpListener, makeRouteConfiguration } from './listener.js';
import { makeIstioInboundTls, makeIstioOutboundTls } from './istio-mtls.js';

export interface LabOptions {
  /** Address the two listeners bind (default 127.0.0.1). */
  listenerAddress: string;
  inboundPort: number;
  outboundPort: number;
  /** Where the app (the lab upstream) listens. */
  appAddress: string;
  appPort: number;
  /** `static`: STATIC clusters and inline routes (the course's lab); `eds-rds`: the app's
   * endpoints over EDS and both listeners' routes over RDS, as a real mesh serves them. */
  discovery: 'static' | 'eds-rds';
  /**
   * Terminate mutual TLS on virtualInbound as an istiod sidecar does in STRICT mode: the
   * workload certificate `default` and the root `ROOTCA`, both over SDS from the `sds-grpc`
   * cluster of Istio's bootstrap (src/resources/istio-mtls.ts). Needs that bootstrap (the real
   * pilot-agent's); a client must present a certificate from the same CA.
   */
  mtls: boolean;
  /**
   * A service virtualOutbound sends to (default: none, the black hole): its DNS name and
   * port, and with `mtls` the SPIFFE identities its certificate may name (any from the mesh's
   * root when empty).
   */
  outbound?: { host: string; port: number; identities?: readonly string[] };
}

export const LAB_DEFAULTS: Readonly<LabOptions> = Object.freeze({
  listenerAddress: '127.0.0.1',
  inboundPort: 15006,
  outboundPort: 10081,
  appAddress: '127.0.0.1',
  appPort: 8101,
  discovery: 'static',
  mtls: false,
});

/** The lab's named variants, as `serve --lab <name>` and resource files name them. */
export const LAB_VARIANTS = {
  /** The course's lab: STATIC clusters, inline routes, plaintext. */
  lab: {},
  'eds-rds': { discovery: 'eds-rds' },
  mtls: { mtls: true },
} as const satisfies Record<string, Partial<LabOptions>>;

export type LabVariant = keyof typeof LAB_VARIANTS;

/** Istio's name for the inbound cluster of a port: `inbound|<port>||`. */
export function inboundClusterName(port: number): string {
  return `inbound|${port}||`;
}

/** Istio's name for a service's outbound cluster: `outbound|<port>||<host>`. */
export function outboundClusterName(host: string, port: number): string {
  return `outbound|${port}||${host}`;
}

export const BLACK_HOLE_CLUSTER = 'BlackHoleCluster';

export function makeLabResources(overrides: Partial<LabOptions> = {}): EnvoyResource[] {
  const options = { ...LAB_DEFAULTS, ...overrides };
  const inboundCluster = inboundClusterName(options.appPort);
  const app = [{ address: options.appAddress, port: options.appPort }];
  const rds = options.discovery === 'eds-rds';
  const outbound = options.outbound;
  const outboundCluster =
    outbound === undefined ? BLACK_HOLE_CLUSTER : outboundClusterName(outbound.host, outbound.port);
  const outboundResources =
    outbound === undefined
      ? []
      : [
          makeDnsCluster({
            name: outboundCluster,
            host: outbound.host,
            port: outbound.port,
            ...(options.mtls && {
              transportSocket: makeIstioOutboundTls(outboundCluster, outbound.identities),
            }),
          }),
        ];
  const inboundResources = rds
    ? [
        makeEdsCluster({ name: inboundCluster }),
        makeClusterLoadAssignment({ clusterName: inboundCluster, endpoints: app }),
        makeRouteConfiguration('virtualInbound', inboundCluster),
        makeRouteConfiguration('virtualOutbound', outboundCluster),
      ]
    : [makeStaticCluster({ name: inboundCluster, endpoints: app })];
  return [
    makeStaticCluster({ name: BLACK_HOLE_CLUSTER, endpoints: [] }),
    ...inboundResources,
    ...outboundResources,
    makeHttpListener({
      name: 'virtualInbound',
      address: options.listenerAddress,
      port: options.inboundPort,
      direction: 'INBOUND',
      cluster: inboundCluster,
      statPrefix: `inbound_0.0.0.0_${options.inboundPort}`,
      rds,
      ...(options.mtls && { transportSocket: makeIstioInboundTls() }),
    }),
    makeHttpListener({
      name: 'virtualOutbound',
      address: options.listenerAddress,
      port: options.outboundPort,
      direction: 'OUTBOUND',
      cluster: outboundCluster,
      statPrefix: `outbound_0.0.0.0_${options.outboundPort}`,
      rds,
    }),
  ];
}
