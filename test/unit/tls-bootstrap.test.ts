/**
 * The bootstrap's `xds-grpc` cluster over TLS: the transport socket Envoy needs to talk to
 * istiod's 15012 (SNI, ALPN h2, the root to trust, the name to expect), and nothing of it
 * without a root certificate. The real Envoy runs it in test/e2e/tls-envoy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  makeSidecarBootstrap,
  resolveSidecarBootstrapOptions,
} from '../../src/bootstrap/sidecar.js';

type Cluster = { name: string; transport_socket?: unknown };
const xdsCluster = (bootstrap: Record<string, unknown>): Cluster | undefined =>
  (bootstrap['static_resources'] as { clusters: Cluster[] }).clusters.find(
    (c) => c.name === 'xds-grpc',
  );

describe('xds-grpc over TLS', () => {
  it('trusts the given root and expects istiod.istio-system.svc', () => {
    const bootstrap = makeSidecarBootstrap({
      tlsRootCertPath: '/var/run/secrets/istio/root-cert.pem',
    });
    expect(xdsCluster(bootstrap)?.transport_socket).toEqual({
      name: 'envoy.transport_sockets.tls',
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
        sni: 'istiod.istio-system.svc',
        common_tls_context: {
          alpn_protocols: ['h2'],
          validation_context: {
            trusted_ca: { filename: '/var/run/secrets/istio/root-cert.pem' },
            match_typed_subject_alt_names: [
              { san_type: 'DNS', matcher: { exact: 'istiod.istio-system.svc' } },
            ],
          },
        },
      },
    });
  });

  it('stays plaintext without a root certificate', () => {
    expect(xdsCluster(makeSidecarBootstrap())?.transport_socket).toBeUndefined();
  });

  it('names bad TLS options', () => {
    const result = resolveSidecarBootstrapOptions({ tlsRootCertPath: '', tlsServerName: '' });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'tlsRootCertPath',
      'tlsServerName',
    ]);
  });
});
