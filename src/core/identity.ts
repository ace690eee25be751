/**
 * Who is on the other end of a stream, as istiod names a proxy (parsed from `node.id` in
 * src/protocol/node.ts).
 */
export const NODE_TYPES = ['sidecar', 'router', 'waypoint', 'ztunnel'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface ProxyIdentity {
  /** The full node id as sent. */
  nodeId: string;
  type: NodeType;
  /** Addresses from `INSTANCE_IPS` metadata, else the id's IP part. */
  ipAddresses: string[];
  /** The third part of the id, `<pod>.<namespace>`; istiod calls it the proxy ID. */
  id: string;
  /** The fourth part, `<namespace>.svc.cluster.local`. */
  dnsDomain: string;
  /** `node.cluster` (`<workload>.<namespace>` for a sidecar). */
  cluster: string;
  metadata: Record<string, unknown>;
  /** `CLUSTER_ID` from metadata (istiod's default is `Kubernetes`). */
  clusterId: string;
  /** `ISTIO_VERSION` from metadata, when present. */
  istioVersion: string;
}

/** istiod's `IsProxylessGrpc`: the node asked for istiod's grpc generator (`GENERATOR: grpc`). */
export function isProxylessGrpc(proxy: ProxyIdentity | undefined): boolean {
  return proxy?.metadata['GENERATOR'] === 'grpc';
}

/** A chain the CA signed for a workload identity (`POST /ca/certificates`' answer). */
export interface IssuedChain {
  /** The SPIFFE identity the certificate carries. */
  identity: string;
  /** The leaf, then the root: one PEM each, as istiod's CA answers. */
  certChain: string[];
  rootCert: string;
  /** The key made for it (PKCS #8 PEM), when the request had no CSR. */
  privateKey?: string;
  notAfter: string;
}
