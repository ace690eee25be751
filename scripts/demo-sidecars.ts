/**
 * The demo's sidecar, either way: the emulated agent (`startAgent`, no Go needed: the
 * default) or the real pilot-agent (`startPilotAgent`, `npm run demo -- --real-agent`), behind
 * the one face the steps use. The only thing the two tell differently is why the sidecar is
 * not ready: the emulated agent keeps its last answer, the real pilot-agent logs it.
 */
import type { PodView } from '../src/envoy/agent-pod-view.js';
import { startAgent } from '../src/envoy/agent.js';
import type { EnvoyProcess } from '../src/envoy/envoy-process.js';
import { startPilotAgent } from '../src/envoy/pilot-agent.js';
import type { TestMockIstiod } from '../src/testing/start.js';
import { waitFor, type WaitOptions } from '../src/util/wait.js';
import type { DemoPorts } from './demo-narrator.js';

export interface DemoSidecar {
  readonly envoy: EnvoyProcess;
  readonly statusUrl: string;
  readonly readinessUrl: string;
  readonly prometheusUrl: string;
  podView(): PodView;
  waitForPod(predicate: (view: PodView) => boolean, options?: WaitOptions): Promise<PodView>;
  onPod(listener: (view: PodView) => void): void;
  /** The reason pilot-agent gave last for answering 503, once it has given one. */
  notReadyReason(): Promise<string | undefined>;
  stop(): Promise<void>;
}

/** The demo's pod, as the seed lab names it. */
export const DEMO_POD_ENV = {
  POD_NAME: 'orders-v1-0',
  POD_NAMESPACE: 'default',
  INSTANCE_IP: '127.0.0.1',
  SERVICE_ACCOUNT: 'default',
} as const;

export async function startEmulatedSidecar(ports: DemoPorts): Promise<DemoSidecar> {
  const agent = await startAgent({
    bootstrap: { discoveryPort: ports.xds },
    ports: sidecarPorts(ports),
  });
  return {
    ...sharedFace(agent),
    notReadyReason: () => {
      const last = agent.lastReadiness();
      return Promise.resolve(last && !last.ready ? last.reason : undefined);
    },
  };
}

const NOT_READY = /Envoy proxy is NOT ready: (.*)$/gm;

/** The real pilot-agent against a mock serving TLS, with a token the mock minted. */
export async function startRealSidecar(
  ports: DemoPorts,
  istiod: TestMockIstiod,
): Promise<DemoSidecar> {
  const agent = await startPilotAgent({
    podEnv: { ...DEMO_POD_ENV },
    discoveryAddress: `127.0.0.1:${ports.xds}`,
    rootCert: istiod.security.rootCert,
    token: istiod.security.createToken({
      namespace: DEMO_POD_ENV.POD_NAMESPACE,
      serviceAccount: DEMO_POD_ENV.SERVICE_ACCOUNT,
    }).token,
    ports: sidecarPorts(ports),
    // Istio's bootstrap keeps only a few stats; step (b) shows BlackHoleCluster's, so keep
    // them as a pod's `proxyStatsMatcher` annotation would.
    proxyConfig: {
      proxyStatsMatcher: { inclusionPrefixes: ['control_plane', 'cluster.BlackHoleCluster'] },
    },
  });
  const lastReason = () => [...agent.envoy.logs().matchAll(NOT_READY)].at(-1)?.[1]?.trim();
  return {
    ...sharedFace(agent),
    // pilot-agent logs the reason as it answers; its log reaches us a moment later.
    notReadyReason: () =>
      waitFor(lastReason, {
        timeoutMs: 5_000,
        description: "pilot-agent's NOT ready line in its log",
      }),
  };
}

/** What both agents show the same way. */
interface AgentLike {
  readonly envoy: EnvoyProcess;
  readonly statusUrl: string;
  readonly readinessUrl: string;
  readonly prometheusUrl: string;
  readonly events: { on(event: 'pod', listener: (view: PodView) => void): unknown };
  podView(): PodView;
  waitForPod(predicate: (view: PodView) => boolean, options?: WaitOptions): Promise<PodView>;
  stop(): Promise<void>;
}

function sharedFace(agent: AgentLike): Omit<DemoSidecar, 'notReadyReason'> {
  return {
    envoy: agent.envoy,
    statusUrl: agent.statusUrl,
    readinessUrl: agent.readinessUrl,
    prometheusUrl: agent.prometheusUrl,
    podView: () => agent.podView(),
    waitForPod: (predicate, options) => agent.waitForPod(predicate, options),
    onPod: (listener) => {
      agent.events.on('pod', listener);
    },
    stop: () => agent.stop(),
  };
}

function sidecarPorts(ports: DemoPorts) {
  return {
    admin: ports.admin,
    status: ports.status,
    readiness: ports.readiness,
    prometheus: ports.prometheus,
  };
}
