/** Node identities as a sidecar's pilot-agent would send them. */
export function sidecarNode(pod = 'orders-v1-0', namespace = 'default', ip = '10.0.0.1') {
  return {
    id: `sidecar~${ip}~${pod}.${namespace}~${namespace}.svc.cluster.local`,
    cluster: `orders.${namespace}`,
    metadata: { CLUSTER_ID: 'Kubernetes', NAMESPACE: namespace, ISTIO_VERSION: '1.24.0' },
  };
}
