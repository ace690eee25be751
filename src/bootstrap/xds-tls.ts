/**
 * The TLS transport socket of the `xds-grpc` cluster, for a control plane that serves xDS
 * over TLS as istiod does on 15012: Envoy checks istiod's certificate against the mesh's root
 * certificate (pilot-agent mounts it from the `istio-ca-root-cert` ConfigMap) and expects the
 * name `istiod.istio-system.svc` on it. Client certificates (mutual TLS, which istiod accepts
 * but does not require) are not configured.
 */
import type { JsonObject } from './proto-json.js';

export function makeXdsTlsSocket(rootCertPath: string, serverName: string): JsonObject {
  return {
    name: 'envoy.transport_sockets.tls',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
      sni: serverName,
      common_tls_context: {
        // gRPC needs HTTP/2, which a TLS server agrees to through ALPN.
        alpn_protocols: ['h2'],
        validation_context: {
          trusted_ca: { filename: rootCertPath },
          match_typed_subject_alt_names: [{ san_type: 'DNS', matcher: { exact: serverName } }],
        },
      },
    },
  };
}
