/**
 * The proxyless gRPC bootstrap builder: the file's shape, pilot-agent's metadata rules, and
 * every bad option named at once. What the real pilot-agent writes is compared in
 * test/e2e/grpc-bootstrap.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { makeGrpcBootstrap } from '../../src/bootstrap/grpc.js';
import { isMockIstiodError } from '../../src/util/errors.js';

describe('makeGrpcBootstrap', () => {
  it('names the mock, the node with GENERATOR grpc, and the server listener template', () => {
    const file = makeGrpcBootstrap({
      podName: 'echo-0',
      namespace: 'shop',
      podIp: '10.1.2.3',
      serviceAccount: 'echo',
      discoveryHost: '127.0.0.1',
      discoveryPort: 15010,
    });
    expect(file).toEqual({
      xds_servers: [
        {
          server_uri: '127.0.0.1:15010',
          channel_creds: [{ type: 'insecure' }],
          server_features: ['xds_v3'],
        },
      ],
      node: {
        id: 'sidecar~10.1.2.3~echo-0.shop~shop.svc.cluster.local',
        metadata: {
          CLUSTER_ID: 'Kubernetes',
          GENERATOR: 'grpc',
          INSTANCE_IPS: '10.1.2.3',
          ISTIO_VERSION: expect.any(String) as unknown,
          MESH_ID: 'cluster.local',
          NAME: 'echo-0',
          NAMESPACE: 'shop',
          SERVICE_ACCOUNT: 'echo',
          WORKLOAD_NAME: 'orders-v1',
        },
        locality: {},
      },
      server_listener_resource_name_template: 'xds.istio.io/grpc/lds/inbound/%s',
    });
    expect(Object.keys(file)).toEqual([
      'xds_servers',
      'node',
      'server_listener_resource_name_template',
    ]);
  });

  it('adds the file_watcher provider over the certificate directory, before the template', () => {
    const file = makeGrpcBootstrap({ certDir: '/var/lib/istio/data/', discoveryHost: '::1' });
    expect(file['certificate_providers']).toEqual({
      default: {
        plugin_name: 'file_watcher',
        config: {
          certificate_file: '/var/lib/istio/data/cert-chain.pem',
          private_key_file: '/var/lib/istio/data/key.pem',
          ca_certificate_file: '/var/lib/istio/data/root-cert.pem',
          refresh_interval: '900s',
        },
      },
    });
    expect(Object.keys(file).slice(-2)).toEqual([
      'certificate_providers',
      'server_listener_resource_name_template',
    ]);
    expect((file['xds_servers'] as { server_uri: string }[])[0]?.server_uri).toBe('[::1]:15012');
  });

  it("writes Istio's boolean metadata as pilot-agent does, and GENERATOR whatever was given", () => {
    const file = makeGrpcBootstrap({
      metadata: {
        DNS_CAPTURE: 'false',
        ENABLE_HBONE: 'T',
        METADATA_DISCOVERY: '0',
        GENERATOR: 'istio',
        APP_CONTAINERS: 'echo',
      },
    });
    const metadata = (file['node'] as { metadata: Record<string, unknown> }).metadata;
    expect(metadata).toMatchObject({
      ENABLE_HBONE: 'true',
      METADATA_DISCOVERY: 'false',
      GENERATOR: 'grpc',
      APP_CONTAINERS: 'echo',
    });
    expect(metadata).not.toHaveProperty('DNS_CAPTURE');
    expect(Object.keys(metadata)).toEqual(Object.keys(metadata).sort());
  });

  it('names every bad option at once', () => {
    const err = (() => {
      try {
        makeGrpcBootstrap({
          podIp: 'not-an-ip',
          namespace: 'a~b',
          certDir: '',
          metadata: { DNS_CAPTURE: 'maybe' },
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isMockIstiodError(err, 'INVALID_OPTIONS')).toBe(true);
    expect(isMockIstiodError(err) && err.problems.map((p) => p.path).sort()).toEqual([
      'certDir',
      'metadata.DNS_CAPTURE',
      'namespace',
      'podIp',
    ]);
  });
});
