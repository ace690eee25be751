/**
 * The three files `istioctl kube-inject` needs to run offline, built from Istio's own chart
 * at the pinned module version (Apache-2.0; read at run time, never copied into this repo):
 *
 * - `--injectConfigFile`: `{ policy, defaultTemplates: [sidecar], templates: { sidecar,
 *   grpc-agent } }`, the sidecar template being the chart's `files/injection-template.yaml`
 *   and grpc-agent its `files/grpc-agent.yaml` (a pod annotated
 *   `inject.istio.io/templates: grpc-agent`: the proxyless gRPC agent, docs/proxyless.md);
 * - `--valuesFile`: the chart's `values.yaml` defaults, narrowed as the chart's own
 *   `istio-sidecar-injector` ConfigMap narrows them (`global`, `sidecarInjectorWebhook`,
 *   `revision`, `pilot.cni`/`pilot.env`, `gateways.securityContext`/`seccompProfile`);
 * - `--meshConfigFile`: a default mesh (discovery at `istiod.istio-system.svc:15012`).
 *
 * The chart files are looked for next to the binaries (`scripts/install-istio.sh` copies
 * them there), then in the Go module cache at the version in the install stamp.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { INSTALL_ISTIO_HINT } from '../envoy/find-istio.js';
import { MockIstiodError } from '../util/errors.js';
import { isObject } from '../util/guards.js';

/** The chart folder inside the istio.io/istio module. */
export const DISCOVERY_CHART = 'manifests/charts/istio-control/istio-discovery';
/** The names install-istio.sh gives the chart files next to the binaries. */
export const TEMPLATE_FILE = 'injection-template.yaml';
export const GRPC_AGENT_TEMPLATE_FILE = 'grpc-agent-template.yaml';
export const VALUES_FILE = 'istio-discovery-values.yaml';

export interface InjectionFiles {
  /** Where the chart files were read from (for messages). */
  source: string;
  injectConfig: string;
  values: string;
  mesh: string;
}

interface ChartFiles {
  template: string;
  grpcAgent: string;
  values: string;
}

const pathsOf = (files: ChartFiles): string[] => [files.template, files.grpcAgent, files.values];
const allThere = (files: ChartFiles) => pathsOf(files).every((path) => existsSync(path));

/** The chart's files: next to the binaries, or in the module cache. */
function findChartFiles(binDir: string, env: NodeJS.ProcessEnv): ChartFiles {
  const beside = {
    template: join(binDir, TEMPLATE_FILE),
    grpcAgent: join(binDir, GRPC_AGENT_TEMPLATE_FILE),
    values: join(binDir, VALUES_FILE),
  };
  if (allThere(beside)) return beside;
  const module = moduleDir(binDir, env);
  const inModule = {
    template: join(module ?? '', DISCOVERY_CHART, 'files', 'injection-template.yaml'),
    grpcAgent: join(module ?? '', DISCOVERY_CHART, 'files', 'grpc-agent.yaml'),
    values: join(module ?? '', DISCOVERY_CHART, 'values.yaml'),
  };
  if (module !== undefined && allThere(inModule)) return inModule;
  const looked = module === undefined ? beside : inModule;
  const path = pathsOf(looked).find((file) => !existsSync(file)) ?? looked.template;
  throw new MockIstiodError(
    'ISTIO_NOT_FOUND',
    `${path} not found (Istio's injection template, from the pinned module): ${INSTALL_ISTIO_HINT}`,
    { details: { path } },
  );
}

/** `<GOMODCACHE>/istio.io/istio@<version>`, the version read from install-istio.sh's stamp. */
function moduleDir(binDir: string, env: NodeJS.ProcessEnv): string | undefined {
  let version: string | undefined;
  try {
    version = readFileSync(join(binDir, '.istio-version'), 'utf8').trim().split(/\s+/)[0];
  } catch {
    return undefined;
  }
  if (version === undefined || version === '') return undefined;
  const cache = env['GOMODCACHE'] ?? goModCache(env);
  return cache === undefined ? undefined : join(cache, `istio.io/istio@${version}`);
}

function goModCache(env: NodeJS.ProcessEnv): string | undefined {
  const run = spawnSync('go', ['env', 'GOMODCACHE'], { env, encoding: 'utf8', timeout: 10_000 });
  const out = run.status === 0 ? run.stdout.trim() : '';
  return out === '' ? undefined : out;
}

/** What the chart's injector ConfigMap keeps of the defaults (its `values` key). */
export function injectorValues(chartValues: unknown): Record<string, unknown> {
  const root = isObject(chartValues) ? chartValues : {};
  const defaults = isObject(root['_internal_defaults_do_not_set'])
    ? root['_internal_defaults_do_not_set']
    : root;
  const pick = (from: unknown, keys: string[]): Record<string, unknown> =>
    Object.fromEntries(
      keys
        .filter((k) => isObject(from) && k in from)
        .map((k) => [k, (from as Record<string, unknown>)[k]]),
    );
  return {
    ...pick(defaults, ['global', 'sidecarInjectorWebhook', 'revision']),
    pilot: pick(defaults, ['cni', 'env']),
    gateways: pick(defaults['gateways'], ['securityContext', 'seccompProfile']),
  };
}

export const DEFAULT_MESH = {
  defaultConfig: { discoveryAddress: 'istiod.istio-system.svc:15012' },
  rootNamespace: 'istio-system',
  trustDomain: 'cluster.local',
};

/**
 * Where the injected containers' images come from, over the chart's defaults: the sidecar's
 * image is `<hub>/proxyv2:<tag>` (the chart's `global.hub`, `global.proxy.image`,
 * `global.tag`), pulled by `global.imagePullPolicy`. A cluster with its own registry, or with
 * images imported and no registry at all (`--hub localhost/mock-istiod --image istio-proxy
 * --image-pull-policy Never`), sets them here, as Helm's `--set global.hub=…` does.
 */
export interface InjectionImages {
  hub?: string;
  /** The proxy image's name under the hub (the chart's `global.proxy.image`, `proxyv2`). */
  image?: string;
  tag?: string;
  pullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
}

/** The chart's `global` with the images set. */
function withImages(
  values: Record<string, unknown>,
  images: InjectionImages,
): Record<string, unknown> {
  const global = isObject(values['global']) ? { ...values['global'] } : {};
  if (images.hub !== undefined) global['hub'] = images.hub;
  if (images.tag !== undefined) global['tag'] = images.tag;
  if (images.pullPolicy !== undefined) global['imagePullPolicy'] = images.pullPolicy;
  if (images.image !== undefined) {
    const proxy = isObject(global['proxy']) ? global['proxy'] : {};
    global['proxy'] = { ...proxy, image: images.image };
    const init = isObject(global['proxy_init']) ? global['proxy_init'] : {};
    global['proxy_init'] = { ...init, image: images.image };
  }
  return { ...values, global };
}

/** The three files' contents, from the chart at the pinned version. */
export function loadInjectionFiles(
  binDir: string,
  env: NodeJS.ProcessEnv,
  images: InjectionImages = {},
): InjectionFiles {
  const chart = findChartFiles(binDir, env);
  const template = readFileSync(chart.template, 'utf8');
  const values = withImages(
    injectorValues(parse(readFileSync(chart.values, 'utf8')) as unknown),
    images,
  );
  return {
    source: chart.template,
    injectConfig: stringify({
      policy: 'enabled',
      alwaysInjectSelector: [],
      neverInjectSelector: [],
      injectedAnnotations: {},
      defaultTemplates: ['sidecar'],
      templates: { sidecar: template, 'grpc-agent': readFileSync(chart.grpcAgent, 'utf8') },
    }),
    values: `${JSON.stringify(values, null, 2)}\n`,
    mesh: stringify(DEFAULT_MESH),
  };
}
