/**
 * Istio's mutual TLS, as istiod writes it into a sidecar's inbound listener: the workload
 * certificate (`default`) and the mesh's root (`ROOTCA`) are not in the resource, they are
 * SDS secrets Envoy fetches from the `sds-grpc` cluster of Istio's bootstrap. In a pod that
 * cluster is pilot-agent's SDS server on a Unix socket; pilot-agent gets the certificate
 * signed by istiod's CA (here: the mock's) with the pod's token.
 */
const DOWNSTREAM_TLS_CONTEXT =
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext';
const UPSTREAM_TLS_CONTEXT =
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext';

/** The cluster Istio's bootstrap defines for pilot-agent's SDS server. */
export const SDS_CLUSTER = 'sds-grpc';
/** Istio's SDS secret names: the workload's certificate and key, and the mesh's root. */
export const WORKLOAD_CERT_SECRET = 'default';
export const ROOT_CA_SECRET = 'ROOTCA';

/** An SDS source over gRPC to `sds-grpc`, as istiod writes it (`initial_fetch_timeout: 0s`). */
export function makeSdsConfig() {
  return {
    api_config_source: {
      api_type: 'GRPC',
      set_node_on_first_message_only: true,
      transport_api_version: 'V3',
      grpc_services: [{ envoy_grpc: { cluster_name: SDS_CLUSTER } }],
    },
    initial_fetch_timeout: '0s',
    resource_api_version: 'V3',
  };
}

/**
 * The transport socket of an inbound filter chain in STRICT mutual TLS: Envoy presents the
 * workload certificate and requires a client certificate issued by the mesh's root.
 */
export function makeIstioInboundTls() {
  return {
    name: 'envoy.transport_sockets.tls',
    typed_config: {
      '@type': DOWNSTREAM_TLS_CONTEXT,
      require_client_certificate: true,
      common_tls_context: {
        alpn_protocols: ['h2', 'http/1.1'],
        tls_certificate_sds_secret_configs: [
          { name: WORKLOAD_CERT_SECRET, sds_config: makeSdsConfig() },
        ],
        combined_validation_context: {
          default_validation_context: {},
          validation_context_sds_secret_config: {
            name: ROOT_CA_SECRET,
            sds_config: makeSdsConfig(),
          },
        },
      },
    },
  };
}

/** The root a peer's certificate is checked against, and optionally its SPIFFE identity. */
function validationFromRoot(peerIdentities: readonly string[]) {
  return {
    default_validation_context:
      peerIdentities.length === 0
        ? {}
        : { match_subject_alt_names: peerIdentities.map((exact) => ({ exact })) },
    validation_context_sds_secret_config: { name: ROOT_CA_SECRET, sds_config: makeSdsConfig() },
  };
}

/**
 * The transport socket of an outbound cluster in Istio's mutual TLS (`ISTIO_MUTUAL`): Envoy
 * presents the workload certificate, offers Istio's ALPN (`istio-peer-exchange`, `istio`),
 * and accepts the server only with a certificate from the mesh's root, naming one of
 * `peerIdentities` (`spiffe://<trust domain>/ns/<ns>/sa/<sa>`) when any are given.
 */
export function makeIstioOutboundTls(sni: string, peerIdentities: readonly string[] = []) {
  return {
    name: 'envoy.transport_sockets.tls',
    typed_config: {
      '@type': UPSTREAM_TLS_CONTEXT,
      sni,
      common_tls_context: {
        alpn_protocols: ['istio-peer-exchange', 'istio'],
        tls_certificate_sds_secret_configs: [
          { name: WORKLOAD_CERT_SECRET, sds_config: makeSdsConfig() },
        ],
        combined_validation_context: validationFromRoot(peerIdentities),
      },
    },
  };
}
