/**
 * `mock-istiod bootstrap` from a pod's environment, one test per row of the seed's bootstrap
 * table (shared/seeds/README.md), plus the inputs a user can get wrong.
 */
import { describe, expect, it } from 'vitest';
import {
  describePodEnvProblems,
  istioMetadataFromEnv,
  podIdentityFromEnv,
} from '../../src/bootstrap/pod-env.js';
import { makeSidecarBootstrap, type JsonObject } from '../../src/bootstrap/sidecar.js';
import { parseHostPort, podBootstrapInput } from '../../src/cli/pod/pod-flags.js';

const POD = {
  POD_NAME: 'reviews-v2-7f9c',
  POD_NAMESPACE: 'shop',
  INSTANCE_IP: '10.1.2.3',
  SERVICE_ACCOUNT: 'bookinfo-reviews',
  ISTIO_META_WORKLOAD_NAME: 'reviews-v2',
  ISTIO_META_CLUSTER_ID: 'east',
  ISTIO_META_MESH_ID: 'mesh1',
  ISTIO_META_DNS_CAPTURE: 'true',
  HOME: '/home/istio-proxy',
};

/** What `mock-istiod bootstrap [flags]` builds for `env`. */
function bootstrapFor(env: NodeJS.ProcessEnv, flags: Record<string, string> = {}): JsonObject {
  const input = podBootstrapInput(flags, env);
  if (!input.ok) throw new Error(input.message);
  return makeSidecarBootstrap(input.options);
}

function staticClusters(bootstrap: JsonObject): JsonObject[] {
  return (bootstrap['static_resources'] as { clusters: JsonObject[] }).clusters;
}

describe('seed bootstrap table, row by row', () => {
  const bootstrap = bootstrapFor(POD);
  const node = bootstrap['node'] as JsonObject;

  it('node.id: sidecar~<pod IP>~<pod>.<namespace>~<namespace>.svc.cluster.local', () => {
    expect(node['id']).toBe('sidecar~10.1.2.3~reviews-v2-7f9c.shop~shop.svc.cluster.local');
  });

  it('node.cluster: <workload>.<namespace>, or istio-proxy.<namespace> without a workload', () => {
    expect(node['cluster']).toBe('reviews-v2.shop');
    const withoutWorkload = { ...POD, ISTIO_META_WORKLOAD_NAME: undefined };
    const other = bootstrapFor(withoutWorkload)['node'] as JsonObject;
    expect(other['cluster']).toBe('istio-proxy.shop');
    expect(other['metadata']).not.toHaveProperty('WORKLOAD_NAME');
  });

  it('node.metadata: every ISTIO_META_* with the prefix removed, the pod identity, the admin API', () => {
    expect(node['metadata']).toEqual({
      CLUSTER_ID: 'east',
      DNS_CAPTURE: 'true',
      MESH_ID: 'mesh1',
      WORKLOAD_NAME: 'reviews-v2',
      NAME: 'reviews-v2-7f9c',
      NAMESPACE: 'shop',
      SERVICE_ACCOUNT: 'bookinfo-reviews',
      INSTANCE_IPS: '10.1.2.3',
      ISTIO_VERSION: '1.28.0',
      ENVOY_STATUS_PORT: 15021,
      ENVOY_PROMETHEUS_PORT: 15090,
      // mock-istiod's own key: where the live page reaches Envoy's admin API.
      ENVOY_ADMIN_ADDRESS: '127.0.0.1:15000',
    });
  });

  it('static_resources.clusters: one cluster, xds-grpc, points at the discovery address', () => {
    const clusters = staticClusters(bootstrapFor(POD, { 'discovery-address': '10.9.9.9:15010' }));
    const toControlPlane = clusters.filter((c) => JSON.stringify(c).includes('15010'));
    expect(toControlPlane.map((c) => c['name'])).toEqual(['xds-grpc']);
    expect(toControlPlane[0]).toMatchObject({
      type: 'STATIC',
      load_assignment: {
        endpoints: [
          {
            lb_endpoints: [
              {
                endpoint: {
                  address: { socket_address: { address: '10.9.9.9', port_value: 15010 } },
                },
              },
            ],
          },
        ],
      },
    });
    // The others are the local ones behind the readiness and Prometheus listeners.
    expect(staticClusters(bootstrap).map((c) => c['name'])).toEqual([
      'xds-grpc',
      'prometheus_stats',
      'agent',
    ]);
  });

  it('static_resources.clusters: istiod by name is a STRICT_DNS cluster', () => {
    const [xds] = staticClusters(
      bootstrapFor(POD, { 'discovery-address': 'istiod.istio-system.svc:15012' }),
    );
    expect(xds).toMatchObject({ name: 'xds-grpc', type: 'STRICT_DNS' });
  });

  it('dynamic_resources: CDS and LDS over ADS, waiting forever for the first response', () => {
    const dynamic = bootstrap['dynamic_resources'] as JsonObject;
    const source = { ads: {}, initial_fetch_timeout: '0s', resource_api_version: 'V3' };
    expect(dynamic['cds_config']).toEqual(source);
    expect(dynamic['lds_config']).toEqual(source);
    expect(dynamic['ads_config']).toMatchObject({
      api_type: 'GRPC',
      transport_api_version: 'V3',
      grpc_services: [{ envoy_grpc: { cluster_name: 'xds-grpc' } }],
    });
    const delta = bootstrapFor(POD, { xds: 'delta' })['dynamic_resources'] as JsonObject;
    expect(delta['ads_config']).toMatchObject({ api_type: 'DELTA_GRPC' });
  });

  it('keeps control_plane.* in the stats, which Istio hides', () => {
    expect(JSON.stringify(bootstrap['stats_config'])).toContain('"prefix":"control_plane."');
  });

  it('puts admin on 127.0.0.1:15000, or --admin-port', () => {
    expect(bootstrap['admin']).toEqual({
      address: { socket_address: { address: '127.0.0.1', port_value: 15000 } },
    });
    const other = bootstrapFor(POD, { 'admin-port': '19000' });
    expect(JSON.stringify(other['admin'])).toContain('19000');
  });
});

describe('pod environment problems', () => {
  it('names every missing variable in one line', () => {
    const result = podIdentityFromEnv({ POD_NAME: 'a', POD_NAMESPACE: '' });
    expect(result.ok).toBe(false);
    const line = result.ok ? '' : describePodEnvProblems(result.problems);
    expect(line).toMatch(
      /^environment variables POD_NAMESPACE, INSTANCE_IP and SERVICE_ACCOUNT are not set \(/,
    );
    expect(line).not.toContain('\n');
    const one = podIdentityFromEnv({ ...POD, SERVICE_ACCOUNT: undefined });
    expect(one.ok ? '' : describePodEnvProblems(one.problems)).toMatch(
      /^environment variable SERVICE_ACCOUNT is not set /,
    );
  });

  it('rejects an INSTANCE_IP that is not an IP and a name with ~', () => {
    const result = podIdentityFromEnv({ ...POD, INSTANCE_IP: 'pod-ip', POD_NAME: 'a~b' });
    expect(result.ok ? [] : result.problems).toEqual([
      { path: 'INSTANCE_IP', message: 'expected an IP address, got "pod-ip"' },
      { path: 'POD_NAME', message: "must not contain '~'" },
    ]);
  });

  it("writes Istio's boolean metadata as pilot-agent writes Envoy's bootstrap: true as 'true', false as given", () => {
    const metadata = (env: NodeJS.ProcessEnv) =>
      (bootstrapFor({ ...POD, ...env })['node'] as JsonObject)['metadata'] as JsonObject;
    expect(
      metadata({
        ISTIO_META_DNS_CAPTURE: 'True',
        ISTIO_META_DNS_AUTO_ALLOCATE: '1',
        ISTIO_META_ENABLE_HBONE: '0',
      }),
    ).toMatchObject({ DNS_CAPTURE: 'true', DNS_AUTO_ALLOCATE: 'true', ENABLE_HBONE: '0' });
    // Not a boolean: the variable is named, nothing is built.
    expect(() => metadata({ ISTIO_META_DNS_CAPTURE: 'maybe' })).toThrow(
      /metadata\.DNS_CAPTURE: expected true or false, got "maybe"/,
    );
  });

  it('takes only ISTIO_META_ variables with a key, sorted', () => {
    expect(
      istioMetadataFromEnv({
        ISTIO_META_: 'x',
        ISTIO_META_B: '2',
        ISTIO_META_A: '1',
        ISTIO_METAJSON_X: '{}',
      }),
    ).toEqual({
      A: '1',
      B: '2',
    });
  });
});

describe('flags', () => {
  it('parses host:port and [v6]:port, and names the flag otherwise', () => {
    expect(parseHostPort('--discovery-address', 'istiod.istio-system.svc:15012')).toEqual({
      host: 'istiod.istio-system.svc',
      port: 15012,
    });
    expect(parseHostPort('--discovery-address', '[::1]:15012')).toEqual({
      host: '::1',
      port: 15012,
    });
    for (const bad of ['15012', 'host:', 'host:0', 'host:70000', '::1:15012']) {
      expect(() => parseHostPort('--discovery-address', bad)).toThrow(
        expect.objectContaining({ code: 'USAGE' }),
      );
    }
    expect(() => parseHostPort('--discovery-address', 'x')).toThrow(
      '--discovery-address: expected host:port (for example 127.0.0.1:15012), got "x"',
    );
  });

  it('refuses port 0 in a written bootstrap but lets the agent pick free ports', () => {
    expect(() => podBootstrapInput({ 'readiness-port': '0' }, POD)).toThrow(
      '--readiness-port: expected a port number 1-65535, got "0"',
    );
    const agent = podBootstrapInput({ 'readiness-port': '0' }, POD, { allowFreePorts: true });
    expect(agent.ok && agent.options.readinessPort).toBe(0);
    expect(() => podBootstrapInput({ xds: 'incremental' }, POD)).toThrow(
      '--xds: expected one of sotw, delta, got "incremental"',
    );
  });
});
