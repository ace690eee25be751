import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateEnvoyConfigs } from '../../scripts/generate-envoy-configs.js';
import { renderBootstrap } from '../../src/bootstrap/render.js';
import {
  DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS,
  formatDuration,
  makeSidecarBootstrap,
  resolveSidecarBootstrapOptions,
  type SidecarBootstrapOptions,
} from '../../src/bootstrap/sidecar.js';
import { packageRoot } from '../../src/util/package-root.js';

/** The value at a path of plain JSON data (`at(b, 'node', 'id')`), or undefined. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

const build = makeSidecarBootstrap;

describe('makeSidecarBootstrap: node', () => {
  it('names the proxy the way pilot-agent does', () => {
    expect(build().node).toEqual({
      id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local',
      cluster: 'orders-v1.default',
      metadata: {
        CLUSTER_ID: 'Kubernetes',
        INSTANCE_IPS: '10.0.0.1',
        ISTIO_VERSION: DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS.istioVersion,
        MESH_ID: 'cluster.local',
        NAME: 'orders-v1-0',
        NAMESPACE: 'default',
        SERVICE_ACCOUNT: 'default',
        WORKLOAD_NAME: 'orders-v1',
        ENVOY_ADMIN_ADDRESS: '127.0.0.1:15000',
      },
    });
  });

  it('names the admin API where the live page reaches it, unless its port is free (0)', () => {
    const admin = (options: Parameters<typeof build>[0]) =>
      at(build(options), 'node', 'metadata', 'ENVOY_ADMIN_ADDRESS');
    expect(admin({ adminPort: 19000 })).toBe('127.0.0.1:19000');
    expect(admin({ adminHost: '0.0.0.0', adminPort: 19000 })).toBe('127.0.0.1:19000');
    expect(admin({ adminHost: '::', adminPort: 19000 })).toBe('[::1]:19000');
    expect(admin({ adminHost: '::1', adminPort: 19000 })).toBe('[::1]:19000');
    expect(admin({ adminPort: 0 })).toBeUndefined();
    // The pod's own value (ISTIO_META_ENVOY_ADMIN_ADDRESS) wins.
    expect(admin({ metadata: { ENVOY_ADMIN_ADDRESS: '10.0.0.1:15000' } })).toBe('10.0.0.1:15000');
  });

  it('builds id, cluster and metadata from the pod options', () => {
    const bootstrap = build({
      podName: 'reviews-v2-7f9c',
      namespace: 'shop',
      podIp: '10.1.2.3',
      workloadName: 'reviews-v2',
      clusterId: 'east',
      metadata: { MESH_ID: 'mesh1', LABELS: { app: 'reviews' } },
    });
    expect(bootstrap.node).toMatchObject({
      id: 'sidecar~10.1.2.3~reviews-v2-7f9c.shop~shop.svc.cluster.local',
      cluster: 'reviews-v2.shop',
      metadata: {
        CLUSTER_ID: 'east',
        NAMESPACE: 'shop',
        MESH_ID: 'mesh1',
        LABELS: { app: 'reviews' },
      },
    });
  });
});

describe('makeSidecarBootstrap: xds-grpc and ADS', () => {
  it('has exactly one static cluster, xds-grpc, STATIC for an IP and speaking HTTP/2', () => {
    const bootstrap = build({ discoveryHost: '127.0.0.2', discoveryPort: 15010 });
    expect(bootstrap.static_resources).toEqual({
      clusters: [
        {
          name: 'xds-grpc',
          type: 'STATIC',
          connect_timeout: '1s',
          load_assignment: {
            cluster_name: 'xds-grpc',
            endpoints: [
              {
                lb_endpoints: [
                  {
                    endpoint: {
                      address: { socket_address: { address: '127.0.0.2', port_value: 15010 } },
                    },
                  },
                ],
              },
            ],
          },
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
        },
      ],
    });
  });

  it('uses STRICT_DNS for a host name and STATIC for an IPv6 address', () => {
    const dns = at(build({ discoveryHost: 'istiod.istio-system.svc' }), 'static_resources');
    expect(dns).toMatchObject({
      clusters: [{ type: 'STRICT_DNS', dns_lookup_family: 'V4_PREFERRED' }],
    });
    const v6 = at(build({ discoveryHost: '::1' }), 'static_resources', 'clusters', 0);
    expect(v6).toMatchObject({ type: 'STATIC' });
    expect(at(v6, 'dns_lookup_family')).toBeUndefined();
  });

  it('fetches CDS and LDS over ADS and waits forever for the first response', () => {
    const source = { ads: {}, initial_fetch_timeout: '0s', resource_api_version: 'V3' };
    expect(build().dynamic_resources).toEqual({
      ads_config: {
        api_type: 'GRPC',
        transport_api_version: 'V3',
        set_node_on_first_message_only: true,
        grpc_services: [
          {
            envoy_grpc: {
              cluster_name: 'xds-grpc',
              retry_policy: { retry_back_off: { base_interval: '0.200s', max_interval: '1s' } },
            },
          },
        ],
      },
      cds_config: source,
      lds_config: source,
    });
  });

  it('takes the retry back-off, xDS mode and ADS cluster name from the options', () => {
    const options: Partial<SidecarBootstrapOptions> = {
      retryBaseMs: 50,
      retryMaxMs: 1500,
      xdsMode: 'delta',
      adsClusterName: 'x',
    };
    expect(at(build(options), 'dynamic_resources', 'ads_config')).toMatchObject({
      api_type: 'DELTA_GRPC',
      grpc_services: [
        {
          envoy_grpc: {
            cluster_name: 'x',
            retry_policy: { retry_back_off: { base_interval: '0.050s', max_interval: '1.500s' } },
          },
        },
      ],
    });
  });
});

describe('makeSidecarBootstrap: admin and stats', () => {
  it('puts admin on 127.0.0.1:15000 by default, or where asked', () => {
    expect(build().admin).toEqual({
      address: { socket_address: { address: '127.0.0.1', port_value: 15000 } },
    });
    expect(at(build({ adminPort: 0 }), 'admin', 'address', 'socket_address', 'port_value')).toBe(0);
  });

  it('keeps the stats the project reads, control_plane.* included', () => {
    const patterns = at(build(), 'stats_config', 'stats_matcher', 'inclusion_list', 'patterns');
    const prefixes = (patterns as { prefix: string }[]).map((p) => p.prefix);
    for (const stat of [
      'control_plane.connected_state',
      'cluster_manager.cds.update_success',
      'cluster_manager.cds.version_text',
      'listener_manager.lds.update_rejected',
      'listener_manager.workers_started',
      'server.state',
      'cluster.xds-grpc.upstream_cx_total',
      'cluster.inbound|8101||.upstream_rq_200',
    ]) {
      expect(
        prefixes.some((prefix) => stat.startsWith(prefix)),
        stat,
      ).toBe(true);
    }
    expect(build({ statsInclusionPrefixes: 'all' }).stats_config).toBeUndefined();
  });
});

describe('makeSidecarBootstrap: options', () => {
  it('reports every bad option at once, with its field', () => {
    const result = resolveSidecarBootstrapOptions({
      podName: 'a~b',
      podIp: 'not-an-ip',
      discoveryPort: 0,
      adminPort: 70000,
      retryBaseMs: 500,
      retryMaxMs: 100,
    });
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.problems.map((p) => p.path);
    expect(paths).toEqual(['podName', 'podIp', 'discoveryPort', 'adminPort', 'retryMaxMs']);
    expect(() => makeSidecarBootstrap({ namespace: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => makeSidecarBootstrap({ namespace: '' })).toThrow('namespace: must not be empty');
  });

  it('is pure: the same options give equal objects, and defaults stay untouched', () => {
    const first = build({ metadata: { A: '1' } });
    (first.node as { metadata: Record<string, unknown> }).metadata['A'] = 'changed';
    expect(at(build({ metadata: { A: '1' } }), 'node', 'metadata', 'A')).toBe('1');
    expect(DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS.metadata).toEqual({});
    expect(build({ podName: undefined })).toEqual(build());
  });

  it('formats milliseconds as canonical proto3 JSON durations', () => {
    expect([0, 1000, 200, 1500, 30_000, 5].map(formatDuration)).toEqual([
      '0s',
      '1s',
      '0.200s',
      '1.500s',
      '30s',
      '0.005s',
    ]);
  });
});

describe('renderBootstrap', () => {
  const bootstrap = makeSidecarBootstrap({ metadata: { ROUTE: 'inbound|8101||' } });

  it('renders YAML that parses back to the same object, quoting strings with |', () => {
    const yaml = renderBootstrap(bootstrap, 'yaml', { comment: 'line one\nline two' });
    expect(yaml.startsWith('# line one\n# line two\n')).toBe(true);
    expect(yaml).toContain("ROUTE: 'inbound|8101||'");
    expect(parse(yaml)).toEqual(bootstrap);
  });

  it('renders JSON ending in a newline', () => {
    const json = renderBootstrap(bootstrap, 'json');
    expect(json.endsWith('}\n')).toBe(true);
    expect(JSON.parse(json)).toEqual(bootstrap);
  });
});

describe('envoy-configs/ (golden)', () => {
  it('regenerating gives the committed files byte for byte', () => {
    const generated = generateEnvoyConfigs();
    expect(generated.map((g) => g.path)).toContain(join('envoy-configs', 'sidecar-sotw.yaml'));
    for (const { path, content } of generated) {
      const committed = readFileSync(join(packageRoot(), path), 'utf8');
      expect(committed, `${path} is stale: run npx tsx scripts/generate-envoy-configs.ts`).toBe(
        content,
      );
    }
  });
});
