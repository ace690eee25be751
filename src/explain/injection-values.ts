/**
 * The interception values sidecar injection writes (the course's chapter 003, checked against
 * `istioctl kube-inject` of a default install): one small table, so that it can be swapped
 * for the values `mock-istiod inject` reads from real istioctl output.
 */
export interface InjectionValues {
  /** `istio-init -p`: where iptables redirects every outbound connection. */
  outboundCapturePort: number;
  /** `istio-init -z`: where iptables redirects every inbound connection. */
  inboundCapturePort: number;
  /** `istio-init -u`: the UID whose connections are not captured (the proxy's). */
  proxyUid: number;
  /** `istio-init -m`: how connections are captured. */
  mode: 'REDIRECT' | 'TPROXY';
  /** `istio-init -d`: inbound ports not captured. */
  excludedInboundPorts: readonly number[];
  /** The readiness probe's port (Envoy's healthz listener, through pilot-agent). */
  readinessPort: number;
  /** `prometheus.io/port`: pilot-agent's merged metrics. */
  mergedMetricsPort: number;
  /** `http-envoy-prom`: Envoy's own Prometheus listener. */
  envoyPromPort: number;
}

export const SEED_INJECTION_VALUES: Readonly<InjectionValues> = Object.freeze({
  outboundCapturePort: 15001,
  inboundCapturePort: 15006,
  proxyUid: 1337,
  mode: 'REDIRECT',
  excludedInboundPorts: Object.freeze([15090, 15021, 15020]),
  readinessPort: 15021,
  mergedMetricsPort: 15020,
  envoyPromPort: 15090,
});
