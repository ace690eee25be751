/**
 * Writes the generated files in envoy-configs/ (or, with --check, fails if any is stale).
 * A unit test regenerates them and compares byte for byte, so edit the builder, not the files.
 *
 * Every file is what `mock-istiod bootstrap` writes for the seed lab's pod (the same code
 * path: pod environment + flags → options → builder); the broken ones then get one deliberate
 * mistake each, and say what the real Envoy does with them (an e2e test checks it).
 *
 *   npx tsx scripts/generate-envoy-configs.ts           # write
 *   npx tsx scripts/generate-envoy-configs.ts --check   # exit 1 if a committed file differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderBootstrap } from '../src/bootstrap/render.js';
import { makeSidecarBootstrap } from '../src/bootstrap/sidecar.js';
import type { JsonObject, SidecarBootstrapOptions } from '../src/bootstrap/sidecar.js';
import { podBootstrapInput } from '../src/cli/pod/pod-flags.js';
import { isMainModule } from '../src/util/is-main.js';
import { packageRoot } from '../src/util/package-root.js';

export interface GeneratedConfig {
  /** Path relative to the package root. */
  path: string;
  content: string;
}

/** What the real `envoy --mode validate` does with a file: accept it, or reject it saying this. */
export type ValidateExpectation = { ok: true } | { ok: false; message: string };

export interface ConfigSpec {
  file: string;
  about: string;
  /** `mock-istiod bootstrap` flags (without the leading dashes). */
  flags: Record<string, string>;
  /** Builder options the CLI has no flag for (to break a file on purpose). */
  options?: Partial<SidecarBootstrapOptions>;
  /** A deliberate mistake made after building. */
  breakIt?: (bootstrap: JsonObject) => void;
  validate: ValidateExpectation;
}

/** The seed lab's pod, as the kubelet would set the istio-proxy container's environment. */
export const SEED_POD_ENV: Readonly<Record<string, string>> = Object.freeze({
  POD_NAME: 'orders-v1-0',
  POD_NAMESPACE: 'default',
  INSTANCE_IP: '10.0.0.1',
  SERVICE_ACCOUNT: 'default',
  ISTIO_META_CLUSTER_ID: 'Kubernetes',
  ISTIO_META_MESH_ID: 'cluster.local',
  ISTIO_META_WORKLOAD_NAME: 'orders-v1',
});

export const CONFIG_SPECS: readonly ConfigSpec[] = [
  {
    file: 'sidecar-sotw.yaml',
    about:
      'The sidecar of pod orders-v1-0.default, as pilot-agent writes it: CDS and LDS over\n' +
      'state-of-the-world ADS from 127.0.0.1:15012; admin on 127.0.0.1:15000; readiness\n' +
      'listener 15021 (/healthz/ready → pilot-agent on 15020); Prometheus listener 15090.\n' +
      "ENVOY_ADMIN_ADDRESS (mock-istiod's own key) tells the mock's live page where admin is.",
    flags: {},
    validate: { ok: true },
  },
  {
    file: 'sidecar-delta.yaml',
    about: 'The same sidecar over delta ADS (api_type DELTA_GRPC, the default of Istio 1.22 on).',
    flags: { xds: 'delta' },
    validate: { ok: true },
  },
  {
    file: 'sidecar-broken-unknown-cluster.yaml',
    about:
      "Deliberately broken: ADS names cluster 'xds-grpc-typo', but the static cluster is\n" +
      "'xds-grpc'. Envoy refuses to start: Unknown gRPC client cluster 'xds-grpc-typo'.",
    flags: {},
    options: { adsClusterName: 'xds-grpc-typo' },
    validate: { ok: false, message: "Unknown gRPC client cluster 'xds-grpc-typo'" },
  },
  {
    file: 'sidecar-broken-no-http2.yaml',
    about:
      'Deliberately broken: the xds-grpc cluster has no HTTP/2 protocol options, so Envoy\n' +
      'speaks HTTP/1.1 to a gRPC server. `envoy --mode validate` says OK (it does not check\n' +
      'this); at run time every ADS stream fails (`14, upstream connect error or\n' +
      'disconnect/reset before headers. reset reason: protocol error`), connected_state\n' +
      'stays 0 and Envoy stays PRE_INITIALIZING.',
    flags: {},
    breakIt: (bootstrap) => {
      const clusters = (bootstrap['static_resources'] as { clusters: JsonObject[] }).clusters;
      const xds = clusters.find((cluster) => cluster['name'] === 'xds-grpc');
      delete xds?.['typed_extension_protocol_options'];
    },
    validate: { ok: true },
  },
  {
    file: 'sidecar-broken-transport-v2.yaml',
    about:
      'Deliberately broken: ADS asks for transport_api_version V2. Envoy refuses to start:\n' +
      'V2 xDS transport protocol version is deprecated … The v2 xDS major version has been\n' +
      'removed and is no longer supported.',
    flags: {},
    breakIt: (bootstrap) => {
      const dynamic = bootstrap['dynamic_resources'] as { ads_config: JsonObject };
      dynamic.ads_config['transport_api_version'] = 'V2';
    },
    validate: { ok: false, message: 'The v2 xDS major version has been removed' },
  },
];

/** The command that writes the same file (before any deliberate mistake). */
export function equivalentCommand(spec: ConfigSpec): string {
  const flags = Object.entries(spec.flags).map(([name, value]) => ` --${name} ${value}`);
  return `mock-istiod bootstrap${flags.join('')}`;
}

/** Every generated file with its expected content. */
export function generateEnvoyConfigs(): GeneratedConfig[] {
  return CONFIG_SPECS.map((spec) => {
    const input = podBootstrapInput(spec.flags, { ...SEED_POD_ENV });
    if (!input.ok) throw new Error(input.message);
    const bootstrap = makeSidecarBootstrap({ ...input.options, ...spec.options });
    spec.breakIt?.(bootstrap);
    const comment = [
      'Generated by scripts/generate-envoy-configs.ts (the code of `mock-istiod bootstrap`): do not edit.',
      'Regenerate with: npx tsx scripts/generate-envoy-configs.ts',
      `Pod environment: ${Object.entries(SEED_POD_ENV)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}`,
      `Command: ${equivalentCommand(spec)}${spec.breakIt || spec.options ? ', then broken on purpose' : ''}`,
      '',
      ...spec.about.split('\n'),
    ].join('\n');
    const content = renderBootstrap(bootstrap, 'yaml', { comment });
    return { path: join('envoy-configs', spec.file), content };
  });
}

function main(): void {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const stale: string[] = [];
  for (const { path, content } of generateEnvoyConfigs()) {
    const absolute = join(packageRoot(), path);
    if (!values.check) {
      writeFileSync(absolute, content);
      console.log(`wrote ${path}`);
    } else if (readOrEmpty(absolute) !== content) {
      stale.push(path);
    }
  }
  if (stale.length > 0) {
    console.error(`generate-envoy-configs: out of date: ${stale.join(', ')} (run without --check)`);
    process.exit(1);
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

if (isMainModule(import.meta.url)) main();
