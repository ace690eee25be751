/**
 * The sidecar lab inside a real pod network (netns.ts): the capture rules written by the real
 * `pilot-agent istio-iptables` with the flags a test gives, a real Envoy in the pod's
 * namespace (as UID 1337, or not) fed by the mock over ADS, the app on 127.0.0.1:8101 in
 * the pod and an external service on 192.0.2.2:8080 outside it.
 *
 * Envoy reaches the mock, which runs in the test's own namespace, through a Unix socket (a
 * path on the file system crosses namespaces): a relay here forwards it to the mock's xDS
 * port. The resources are the lab's, laid out as Istio lays them out for capture: both
 * listeners on 0.0.0.0 with the original-destination listener filter, `virtualOutbound` on
 * 15001 (not the lab's 10081: the capture rules send outbound traffic there) to
 * `PassthroughCluster` (ALLOW_ANY) or `BlackHoleCluster` (REGISTRY_ONLY), `virtualInbound`
 * on 15006 to `inbound|8101||`. Envoy's own readiness listener answers on 15021.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findEnvoy } from '../../../src/envoy/find-envoy.js';
import { findIstio } from '../../../src/envoy/find-istio.js';
import type { TestMockIstiod } from '../../../src/testing/start.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNetnsPair, EXT_IP, type NetnsPair, type Spawned } from './netns.js';

export type OutboundPolicy = 'ALLOW_ANY' | 'REGISTRY_ONLY';
export const APP_PORT = 8101;
export const EXT_PORT = 8080;
export const ADMIN_PORT = 15000;

const HCM =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
const STDOUT_LOG = 'type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog';
const ORIGINAL_DST =
  'type.googleapis.com/envoy.extensions.filters.listener.original_dst.v3.OriginalDst';

/** One access-log line per request: listener, path, status, flags, cluster, upstream host. */
const LOG_FORMAT =
  '%ACCESS_LOG_TYPE% listener=%REQ(x-lab-listener)% ' +
  '%REQ(:AUTHORITY)%%REQ(:PATH)% %RESPONSE_CODE% %RESPONSE_FLAGS% %UPSTREAM_CLUSTER% %UPSTREAM_HOST%\n';

function httpListener(name: string, port: number, direction: string, cluster: string) {
  return {
    '@type': 'type.googleapis.com/envoy.config.listener.v3.Listener',
    name,
    address: { socket_address: { address: '0.0.0.0', port_value: port } },
    traffic_direction: direction,
    listener_filters: [
      { name: 'envoy.filters.listener.original_dst', typed_config: { '@type': ORIGINAL_DST } },
    ],
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM,
              stat_prefix: name,
              access_log: [
                {
                  name: 'envoy.access_loggers.stdout',
                  typed_config: {
                    '@type': STDOUT_LOG,
                    log_format: {
                      text_format_source: {
                        inline_string: LOG_FORMAT.replace('%REQ(x-lab-listener)%', name),
                      },
                    },
                  },
                },
              ],
              route_config: {
                name,
                virtual_hosts: [
                  {
                    name,
                    domains: ['*'],
                    routes: [{ match: { prefix: '/' }, route: { cluster } }],
                  },
                ],
              },
              http_filters: [
                { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER } },
              ],
            },
          },
        ],
      },
    ],
  };
}

const CLUSTER = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

export function interceptionResources(policy: OutboundPolicy): unknown[] {
  return [
    httpListener(
      'virtualOutbound',
      15001,
      'OUTBOUND',
      policy === 'ALLOW_ANY' ? 'PassthroughCluster' : 'BlackHoleCluster',
    ),
    httpListener('virtualInbound', 15006, 'INBOUND', `inbound|${APP_PORT}||`),
    {
      '@type': CLUSTER,
      name: 'PassthroughCluster',
      type: 'ORIGINAL_DST',
      lb_policy: 'CLUSTER_PROVIDED',
      connect_timeout: '1s',
    },
    { '@type': CLUSTER, name: 'BlackHoleCluster', type: 'STATIC', connect_timeout: '1s' },
    {
      '@type': CLUSTER,
      name: `inbound|${APP_PORT}||`,
      type: 'STATIC',
      connect_timeout: '1s',
      load_assignment: {
        cluster_name: `inbound|${APP_PORT}||`,
        endpoints: [
          {
            lb_endpoints: [
              {
                endpoint: {
                  address: { socket_address: { address: '127.0.0.1', port_value: APP_PORT } },
                },
              },
            ],
          },
        ],
      },
    },
  ];
}

function bootstrap(xdsSocket: string): unknown {
  return {
    node: {
      id: 'sidecar~192.0.2.1~orders-v1-0.default~default.svc.cluster.local',
      cluster: 'orders.default',
    },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: ADMIN_PORT } } },
    dynamic_resources: {
      ads_config: {
        api_type: 'GRPC',
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: 'xds-grpc' } }],
      },
      cds_config: { ads: {}, resource_api_version: 'V3' },
      lds_config: { ads: {}, resource_api_version: 'V3' },
    },
    static_resources: {
      clusters: [
        {
          name: 'xds-grpc',
          type: 'STATIC',
          connect_timeout: '1s',
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
          load_assignment: {
            cluster_name: 'xds-grpc',
            endpoints: [
              { lb_endpoints: [{ endpoint: { address: { pipe: { path: xdsSocket } } } }] },
            ],
          },
        },
      ],
      listeners: [
        {
          // What Istio's bootstrap has on 15021: Envoy's own readiness answer.
          name: 'readiness',
          address: { socket_address: { address: '0.0.0.0', port_value: 15021 } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type': HCM,
                    stat_prefix: 'readiness',
                    route_config: {
                      virtual_hosts: [
                        {
                          name: 'readiness',
                          domains: ['*'],
                          routes: [
                            {
                              match: { prefix: '/healthz/ready' },
                              direct_response: {
                                status: 200,
                                body: { inline_string: 'envoy readiness: LIVE' },
                              },
                            },
                          ],
                        },
                      ],
                    },
                    http_filters: [
                      { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER } },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    },
  };
}

/** A tiny HTTP server answering `<name>:<port> <path>`, as the lab's upstream does. */
function echoServer(name: string, host: string, port: number): string[] {
  const code = `require('node:http').createServer((q, s) => s.end(${JSON.stringify(name)} + ':${port} ' + q.url)).listen(${port}, ${JSON.stringify(host)})`;
  return [process.execPath, '-e', code];
}

export interface InterceptionPodOptions {
  mock: TestMockIstiod;
  /** The flags given to `pilot-agent istio-iptables` (the injection's istio-init args). */
  iptables: string[];
  /** The UID Envoy runs as: 1337 as injected, 0 for the mistake. */
  envoyUid: number;
}

export interface InterceptionPod {
  net: NetnsPair;
  envoy: Spawned;
  /** `iptables-save -t nat` in the pod after the rules were written. */
  natRules: string;
  /** Envoy's admin stats (text), read from inside the pod. */
  stats(filter: string): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** A relay from a Unix socket to the mock's xDS port (closed with the pod). */
async function relay(path: string, port: number): Promise<() => Promise<void>> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = createConnection({ host: '127.0.0.1', port });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, 0o777);
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

export async function startInterceptionPod(
  options: InterceptionPodOptions,
): Promise<InterceptionPod> {
  const istio = findIstio();
  const envoyBin = findEnvoy();
  const dir = mkdtempSync(join(tmpdir(), 'mock-istiod-interception-'));
  chmodSync(dir, 0o755);
  const net = createNetnsPair();
  let stopRelay: (() => Promise<void>) | undefined;
  const close = async () => {
    await net.close();
    await stopRelay?.();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const rules = await net.exec(
      net.pod,
      [istio.pilotAgent, 'istio-iptables', ...options.iptables],
      30_000,
    );
    if (rules.code !== 0)
      throw new Error(`pilot-agent istio-iptables failed: ${rules.stderr}${rules.stdout}`);
    const natRules = (await net.exec(net.pod, ['iptables-save', '-t', 'nat'])).stdout;
    const socket = join(dir, 'xds.sock');
    stopRelay = await relay(socket, options.mock.addresses.xds.port);
    const config = join(dir, 'envoy.json');
    writeFileSync(config, JSON.stringify(bootstrap(socket)));
    chmodSync(config, 0o644);
    net.spawn(net.pod, echoServer('ok', '127.0.0.1', APP_PORT));
    net.spawn(net.ext, echoServer('external', EXT_IP, EXT_PORT));
    const envoy = net.spawn(
      net.pod,
      [
        envoyBin,
        '-c',
        config,
        '--concurrency',
        '1',
        '--disable-hot-restart',
        '--log-level',
        'warning',
      ],
      { uid: options.envoyUid },
    );
    const admin = (path: string) => net.curl(net.pod, `http://127.0.0.1:${ADMIN_PORT}${path}`);
    await waitFor(
      async () => {
        const listeners = await admin('/listeners');
        return (
          listeners.body.includes('virtualOutbound::') &&
          listeners.body.includes('virtualInbound::')
        );
      },
      {
        timeoutMs: 30_000,
        description: 'Envoy in the pod namespace to have virtualOutbound and virtualInbound',
        explain: () => envoy.stderr().slice(-2000),
      },
    );
    for (const [ns, url] of [
      [net.pod, `http://127.0.0.1:${APP_PORT}/`],
      [net.ext, `http://${EXT_IP}:${EXT_PORT}/`],
    ] as const) {
      await waitFor(async () => (await net.curl(ns, url)).status === 200, {
        description: `${url} to answer`,
      });
    }
    return {
      net,
      envoy,
      natRules,
      async stats(filter) {
        const text = (await admin(`/stats?filter=${encodeURIComponent(filter)}`)).body;
        return Object.fromEntries(
          text
            .split('\n')
            .map((line) => /^(\S+): (\d+)$/.exec(line))
            .filter((m): m is RegExpExecArray => m !== null)
            .map((m) => [m[1] ?? '', Number(m[2])]),
        );
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
