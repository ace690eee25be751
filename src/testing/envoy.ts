/**
 * Real Envoy processes for test suites: `startEnvoy({ bootstrap })` spawns one (tracked by
 * the leak check, killed when Node exits), and `sidecarBootstrap(istiod)` writes the
 * bootstrap of a sidecar pointing at a mock istiod, with the short retry back-off tests want.
 */
import {
  makeGrpcBootstrap,
  type GrpcBootstrap,
  type GrpcBootstrapOptions,
} from '../bootstrap/grpc.js';
import { makeSidecarBootstrap } from '../bootstrap/sidecar.js';
import {
  DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS,
  type SidecarBootstrapOptions,
} from '../bootstrap/sidecar-options.js';
import {
  envoyExitedError,
  startEnvoy as spawnEnvoy,
  type EnvoyProcess,
  type StartEnvoyOptions,
} from '../envoy/envoy-process.js';
import type { MockIstiod } from '../app/mock-istiod-api.js';
import { track } from './leaks.js';
import { waitFor, type WaitOptions } from '../util/wait.js';

export type EnvoyState = 'LIVE' | 'DRAINING' | 'PRE_INITIALIZING' | 'INITIALIZING';

export interface TestEnvoy extends EnvoyProcess {
  /** Waits until `/server_info` reports `state` (LIVE also waits for the workers); rejects at once if Envoy exits. */
  waitForState(state: EnvoyState, options?: WaitOptions): Promise<void>;
}

export async function startEnvoy(options: StartEnvoyOptions): Promise<TestEnvoy> {
  const envoy = await spawnEnvoy(options);
  let stopped = false;
  const stop = envoy.stop.bind(envoy);
  const stoppedAndChecked = track({
    kind: 'envoy',
    pid: envoy.pid,
    stopped: () => stopped,
    stop: () => envoy.stop(),
  });
  return Object.assign(envoy, {
    stop: async (opts?: { timeoutMs?: number }) => {
      const exit = await stop(opts);
      stopped = true;
      stoppedAndChecked();
      return exit;
    },
    waitForState: (state: EnvoyState, waitOptions: WaitOptions = {}) =>
      waitForState(envoy, state, waitOptions),
  });
}

async function waitForState(
  envoy: EnvoyProcess,
  state: EnvoyState,
  options: WaitOptions,
): Promise<void> {
  if (state === 'LIVE') return envoy.waitForLive(options);
  const seen = await waitFor(
    async () =>
      envoy.exitStatus
        ? { exit: envoy.exitStatus }
        : (await envoy.serverInfoState()) === state && {},
    { timeoutMs: 15_000, description: `Envoy to be ${state}`, ...options },
  );
  if ('exit' in seen && seen.exit) throw envoyExitedError(seen.exit, envoy.logTail());
}

/**
 * A sidecar's bootstrap pointing at `istiod` (admin port chosen by the OS). When the mock
 * authenticates xDS streams (TLS with `xdsAuth` on), the bootstrap carries a token the mock
 * minted for the pod's namespace and service account, as pilot-agent sends the pod's token.
 */
export function sidecarBootstrap(
  istiod: Pick<MockIstiod, 'addresses'> & Partial<Pick<MockIstiod, 'security'>>,
  overrides: Partial<SidecarBootstrapOptions> = {},
): object {
  const { host, port } = istiod.addresses.xds;
  const options = { ...DEFAULT_SIDECAR_BOOTSTRAP_OPTIONS, ...overrides };
  const security = istiod.security;
  const xdsToken =
    overrides.xdsToken === undefined && security?.xdsAuth === true
      ? security.createToken({
          namespace: options.namespace,
          serviceAccount: options.serviceAccount,
        }).token
      : overrides.xdsToken;
  return makeSidecarBootstrap({
    discoveryHost: host,
    discoveryPort: port,
    adminPort: 0,
    ...overrides,
    ...(xdsToken !== undefined && { xdsToken }),
  });
}

/**
 * The bootstrap a proxyless gRPC client of this mock reads (what `mock-istiod bootstrap
 * --grpc` writes): give it to gRPC as the file `GRPC_XDS_BOOTSTRAP` names, or as
 * grpc-js-xds's bootstrap config channel option.
 */
export function grpcBootstrap(
  istiod: Pick<MockIstiod, 'addresses'>,
  overrides: Partial<GrpcBootstrapOptions> = {},
): GrpcBootstrap {
  const { host, port } = istiod.addresses.xds;
  return makeGrpcBootstrap({ discoveryHost: host, discoveryPort: port, ...overrides });
}
