/**
 * Start-to-LIVE of one sidecar, the real pilot-agent against the emulated agent, on the same
 * machine and the same mock (TLS, the lab's resources): milliseconds from the call that starts
 * the sidecar to Envoy LIVE (`/ready` 200, workers started). The real pilot-agent also gets
 * its workload certificate from the mock's CA on the way; the emulated agent's Envoy dials
 * the mock over TLS directly, with the token in its bootstrap. Runs alternate (real,
 * emulated, real, …); medians and the ratio of medians are printed.
 *
 *   npx tsx bench/micro/agent-live.ts [runs] [real|emulated|both]
 */
import { startAgent } from '../../src/envoy/agent.js';
import { startPilotAgent } from '../../src/envoy/pilot-agent.js';
import { makeLabResources } from '../../src/resources/lab.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { freePorts } from '../../src/util/ports.js';
import { median } from '../lib/stats.js';

const POD_ENV = {
  POD_NAME: 'orders-v1-0',
  POD_NAMESPACE: 'default',
  INSTANCE_IP: '127.0.0.1',
  SERVICE_ACCOUNT: 'default',
};
const FREE = { admin: 0, status: 0, readiness: 0, prometheus: 0 };

async function realToLive(istiod: TestMockIstiod): Promise<number> {
  const started = performance.now();
  const agent = await startPilotAgent({
    podEnv: POD_ENV,
    discoveryAddress: istiod.xdsAddress,
    rootCert: istiod.security.rootCert,
    token: istiod.security.createToken({}).token,
    ports: FREE,
  });
  try {
    await agent.envoy.waitForLive({ intervalMs: 5, timeoutMs: 30_000 });
    return performance.now() - started;
  } finally {
    await agent.stop();
  }
}

async function emulatedToLive(istiod: TestMockIstiod): Promise<number> {
  const started = performance.now();
  const agent = await startAgent({
    bootstrap: {
      discoveryPort: istiod.addresses.xds.port,
      tlsRootCertPath: istiod.security.rootCertPath ?? null,
      // The mock authenticates xDS on its TLS port: Envoy without pilot-agent sends the token.
      xdsToken: istiod.security.createToken({}).token,
    },
    ports: FREE,
  });
  try {
    await agent.envoy.waitForLive({ intervalMs: 5, timeoutMs: 30_000 });
    return performance.now() - started;
  } finally {
    await agent.stop();
  }
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? '10');
  const which = process.argv[3] ?? 'both';
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const istiod = await startMockIstiod({
    tls: true,
    resources: makeLabResources({ inboundPort, outboundPort }),
  });
  const samples = { real: [] as number[], emulated: [] as number[] };
  try {
    for (let run = 0; run < runs; run++) {
      if (which !== 'emulated') samples.real.push(await realToLive(istiod));
      if (which !== 'real') samples.emulated.push(await emulatedToLive(istiod));
    }
  } finally {
    await istiod.close();
  }
  const show = (values: number[]) => values.map((v) => v.toFixed(0)).join(' ');
  const real = median(samples.real);
  const emulated = median(samples.emulated);
  if (samples.real.length > 0)
    console.log(`real pilot-agent  ms: ${show(samples.real)}  median ${real.toFixed(0)}`);
  if (samples.emulated.length > 0)
    console.log(`emulated agent    ms: ${show(samples.emulated)}  median ${emulated.toFixed(0)}`);
  if (which === 'both')
    console.log(`ratio of medians (real / emulated): ${(real / emulated).toFixed(2)}`);
}

await main();
