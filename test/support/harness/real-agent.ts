/**
 * The sidecar lab with the REAL pilot-agent in front of Envoy: the lab upstream (the app), a
 * mock istiod serving the lab's resources over TLS with its CA, and `pilot-agent proxy
 * sidecar` (from `npm run install-istio`) run with a token the mock minted. Every port is
 * free; `close()` stops pilot-agent (and its Envoy) first. `useRealLab()` closes after each
 * test, even a failed one.
 *
 * The binaries are required: a test that needs them fails, naming the command that builds
 * them, and never skips.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach } from 'vitest';
import { startLabUpstream, type LabUpstream } from '../../../scripts/lab-upstream.js';
import type { MockIstiodOptions } from '../../../src/app/options.js';
import { findIstio, type IstioBinaries } from '../../../src/envoy/find-istio.js';
import {
  startPilotAgent,
  type PilotAgent,
  type PilotAgentOptions,
} from '../../../src/envoy/pilot-agent.js';
import { makeLabResources, type LabOptions } from '../../../src/resources/lab.js';
import { startMockIstiod, type TestMockIstiod } from '../../../src/testing/start.js';
import { freeLabPorts } from './lab.js';

/** The pod every real-agent test runs as (the seed lab's). */
export const POD_ENV = {
  POD_NAME: 'orders-v1-0',
  POD_NAMESPACE: 'default',
  INSTANCE_IP: '127.0.0.1',
  SERVICE_ACCOUNT: 'default',
  ISTIO_META_WORKLOAD_NAME: 'orders-v1',
} as const;

/**
 * That pod as istiod's Kubernetes sees it (istiod-ref's `-kube` input): the lab's orders on
 * 8101, running at 127.0.0.1.
 */
export const POD_KUBE_YAML = `apiVersion: v1
kind: Service
metadata: {name: orders, namespace: ${POD_ENV.POD_NAMESPACE}}
spec:
  selector: {app: orders}
  ports: [{name: http, port: 8101, targetPort: 8101}]
---
apiVersion: v1
kind: Pod
metadata:
  name: ${POD_ENV.POD_NAME}
  namespace: ${POD_ENV.POD_NAMESPACE}
  labels: {app: orders}
spec:
  serviceAccountName: ${POD_ENV.SERVICE_ACCOUNT}
  containers: [{name: orders, image: orders, ports: [{containerPort: 8101}]}]
status:
  phase: Running
  podIP: ${POD_ENV.INSTANCE_IP}
  podIPs: [{ip: ${POD_ENV.INSTANCE_IP}}]
  conditions: [{type: Ready, status: 'True'}]
`;

/** The node id pilot-agent gives that pod. */
export const POD_NODE_ID = 'sidecar~127.0.0.1~orders-v1-0.default~default.svc.cluster.local';

/** pilot-agent, istioctl and the template, or an error naming the command that builds them. */
export function requireIstio(): IstioBinaries {
  try {
    return findIstio();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`this test needs the real pilot-agent and istioctl. ${reason}`, {
      cause: err,
    });
  }
}

export interface IstioctlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real istioctl with a deadline (it is killed after `timeoutMs`) and without a
 * Kubernetes configuration, as on a laptop with no cluster.
 */
export function runIstioctl(args: string[], timeoutMs = 20_000): Promise<IstioctlResult> {
  const { istioctl } = requireIstio();
  return new Promise((resolve) => {
    execFile(
      istioctl,
      args,
      {
        timeout: timeoutMs,
        env: {
          PATH: process.env['PATH'],
          HOME: process.env['HOME'],
          KUBECONFIG: '/nonexistent/kubeconfig',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface RealLab {
  istiod: TestMockIstiod;
  agent: PilotAgent;
  upstream: LabUpstream;
  ports: LabOptions;
  istio: IstioBinaries;
  /** With `outputCerts`: where pilot-agent writes `cert-chain.pem`, `key.pem`, `root-cert.pem`. */
  certDir: string | undefined;
  /** The `msg` of every line the mock logged (info and above), such as its CA's. */
  mockLog(): string[];
  inboundUrl(path: string): string;
  outboundUrl(path: string): string;
  close(): Promise<void>;
}

export interface RealLabOptions {
  mock?: Partial<MockIstiodOptions>;
  /** The lab's variant and options, beside the ports chosen here (`{ mtls: true }`). */
  lab?: Partial<LabOptions>;
  agent?: Partial<PilotAgentOptions>;
  /** Variables added to the pod's environment (a template's `ISTIO_META_*`). */
  podEnv?: Record<string, string>;
  /** Mint the pod's token (default true); false: pilot-agent starts without one. */
  token?: boolean;
  /**
   * Have pilot-agent write its workload certificate, key and root (`OUTPUT_CERTS`) into a
   * directory of their own (`certDir`): a client identity the mock's TLS port accepts.
   */
  outputCerts?: boolean;
  /**
   * pilot-agent's xDS straight to this plaintext `host:port` (an istiod-ref), as a sidecar of
   * a mesh with `controlPlaneAuthPolicy: NONE`; the mock stays its CA (`CA_ADDR`).
   */
  direct?: string;
}

export async function startRealLab(options: RealLabOptions = {}): Promise<RealLab> {
  const istio = requireIstio();
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const upstream = await startLabUpstream({ mode: 'ok', port: 0 });
    cleanups.push(() => upstream.close());
    const ports = await freeLabPorts(upstream.port);
    const logged: string[] = [];
    const istiod = await startMockIstiod({
      tls: true,
      logger: pino({ level: 'info' }, lineSink(logged)),
      resources: makeLabResources({ ...ports, ...options.lab }),
      ...options.mock,
    });
    cleanups.push(() => istiod.close());
    const podEnv = { ...POD_ENV, ...options.podEnv };
    const token =
      options.token === false
        ? undefined
        : istiod.security.createToken({
            namespace: podEnv.POD_NAMESPACE,
            serviceAccount: podEnv.SERVICE_ACCOUNT,
          }).token;
    const certDir = options.outputCerts
      ? mkdtempSync(join(tmpdir(), 'mock-istiod-pod-certs-'))
      : undefined;
    if (certDir !== undefined) {
      cleanups.push(() => Promise.resolve(rmSync(certDir, { recursive: true, force: true })));
    }
    const agent = await startPilotAgent({
      podEnv: {
        ...podEnv,
        ...(certDir !== undefined ? { OUTPUT_CERTS: certDir } : {}),
        ...(options.direct !== undefined ? { CA_ADDR: istiod.xdsAddress } : {}),
      },
      discoveryAddress: options.direct ?? istiod.xdsAddress,
      ...(options.direct !== undefined && {
        proxyConfig: { controlPlaneAuthPolicy: 'NONE' },
      }),
      rootCert: istiod.security.rootCert,
      token,
      istio,
      ports: { admin: 0, status: 0, readiness: 0, prometheus: 0 },
      probeIntervalMs: 200,
      ...options.agent,
    });
    cleanups.push(() => agent.stop());
    return {
      istiod,
      agent,
      upstream,
      ports,
      istio,
      certDir,
      mockLog: () => logged.map((line) => (JSON.parse(line) as { msg: string }).msg),
      inboundUrl: (path) => `http://127.0.0.1:${ports.inboundPort}${path}`,
      outboundUrl: (path) => `http://127.0.0.1:${ports.outboundPort}${path}`,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
}

/** A real lab per test, closed after each test. */
export function useRealLab() {
  const labs: RealLab[] = [];
  afterEach(async () => {
    for (const lab of labs.splice(0)) await lab.close();
  });
  return {
    async start(options: RealLabOptions = {}): Promise<RealLab> {
      const lab = await startRealLab(options);
      labs.push(lab);
      return lab;
    },
  };
}
