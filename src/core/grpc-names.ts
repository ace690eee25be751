/** Names of istiod's proxyless gRPC support that more than one floor reads. */

/** The listener a gRPC server asks for: `xds.istio.io/grpc/lds/inbound/<ip>:<port>`. */
export const GRPC_SERVER_LISTENER_PREFIX = 'xds.istio.io/grpc/lds/inbound/';
