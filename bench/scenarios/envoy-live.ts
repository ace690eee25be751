/**
 * Real Envoy: time from spawning Envoy to LIVE (`/ready` 200 and workers started) when its
 * listeners and clusters come over ADS from each server, against the floor: the same
 * resources written into the bootstrap as `static_resources`. Runs interleave the variants
 * so that background noise spreads over all of them; the median is reported.
 */
import { makeSidecarBootstrap, type JsonObject } from '../../src/bootstrap/sidecar.js';
import { startEnvoy } from '../../src/envoy/envoy-process.js';
import { freePorts } from '../../src/util/ports.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { pushingServers, type BenchContext } from '../lib/context.js';
import { round } from '../lib/proc.js';
import { makeBenchResources, writeBenchResources } from '../lib/resource-set.js';
import { ServerProcess, type ServerKind } from '../lib/server-process.js';
import { median } from '../lib/stats.js';

export type EnvoyVariant = 'static' | ServerKind;

export interface EnvoyLiveResult {
  runs: number;
  /** Milliseconds from spawn to LIVE, per variant, in run order. */
  samples: Partial<Record<EnvoyVariant, number[]>>;
  median: Partial<Record<EnvoyVariant, number>>;
}

/** A bootstrap whose clusters and listeners are static: nothing to fetch, the floor. */
function staticBootstrap(resources: readonly Record<string, unknown>[]): JsonObject {
  const bootstrap = makeSidecarBootstrap({ adminPort: 0 });
  // Bootstrap resources are plain messages, not `Any`s: they carry no `@type`.
  const plain = (type: string) =>
    resources
      .filter((r) => r['@type'] === type)
      .map(({ '@type': _type, ...rest }) => rest as JsonObject);
  delete bootstrap['dynamic_resources'];
  bootstrap['static_resources'] = {
    clusters: plain(CLUSTER_TYPE),
    listeners: plain(LISTENER_TYPE),
  };
  return bootstrap;
}

async function timeToLive(bootstrap: JsonObject): Promise<number> {
  const started = performance.now();
  const envoy = await startEnvoy({ bootstrap, logLevel: 'warning' });
  try {
    await envoy.waitForLive({ intervalMs: 5, timeoutMs: 30_000 });
    return round(performance.now() - started, 1);
  } finally {
    await envoy.stop();
  }
}

export async function envoyLiveScenario(ctx: BenchContext): Promise<EnvoyLiveResult> {
  const [inboundPort, outboundPort] = (await freePorts(2)) as [number, number];
  const lab = { inboundPort, outboundPort };
  const resourcesPath = writeBenchResources(ctx.workDir, { clusters: 2, lab });
  const servers = new Map<ServerKind, ServerProcess>();
  const samples: Partial<Record<EnvoyVariant, number[]>> = { static: [] };
  try {
    for (const kind of pushingServers(ctx)) {
      servers.set(
        kind,
        await ServerProcess.start({ kind, resourcesPath, rootDir: ctx.rootDir, bins: ctx.bins }),
      );
      samples[kind] = [];
    }
    const floor = staticBootstrap(makeBenchResources({ clusters: 2, lab }));
    for (let run = 0; run < ctx.profile.envoyRuns; run++) {
      samples.static?.push(await timeToLive(floor));
      for (const [kind, server] of servers) {
        const discoveryPort = Number(server.xdsAddress.split(':')[1]);
        samples[kind]?.push(
          await timeToLive(makeSidecarBootstrap({ discoveryPort, adminPort: 0 })),
        );
      }
      ctx.log(
        `envoy start-to-LIVE run ${run + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.at(-1)])))}`,
      );
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  return { runs: ctx.profile.envoyRuns, samples, median: medians };
}
