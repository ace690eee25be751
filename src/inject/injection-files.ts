/**
 * The three files `istioctl kube-inject` needs to run offline, built from Istio's own chart
 * at the pinned module version (Apache-2.0; read at run time, never copied into this repo):
 *
 * - `--injectConfigFile`: `{ policy, defaultTemplates: [sidecar], templates: { sidecar } }`,
 *   the sidecar template being the chart's `files/injection-template.yaml`;
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
/** The names install-istio.sh gives the two chart files next to the binaries. */
export const TEMPLATE_FILE = 'injection-template.yaml';
export const VALUES_FILE = 'istio-discovery-values.yaml';

export interface InjectionFiles {
  /** Where the chart files were read from (for messages). */
  source: string;
  injectConfig: string;
  values: string;
  mesh: string;
}

/** The chart's two files: next to the binaries, or in the module cache. */
function findChartFiles(
  binDir: string,
  env: NodeJS.ProcessEnv,
): { template: string; values: string } {
  const beside = { template: join(binDir, TEMPLATE_FILE), values: join(binDir, VALUES_FILE) };
  if (existsSync(beside.template) && existsSync(beside.values)) return beside;
  const module = moduleDir(binDir, env);
  const inModule = {
    template: join(module ?? '', DISCOVERY_CHART, 'files', 'injection-template.yaml'),
    values: join(module ?? '', DISCOVERY_CHART, 'values.yaml'),
  };
  if (module !== undefined && existsSync(inModule.template) && existsSync(inModule.values)) {
    return inModule;
  }
  const path = module === undefined ? beside.template : inModule.template;
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

/** The three files' contents, from the chart at the pinned version. */
export function loadInjectionFiles(binDir: string, env: NodeJS.ProcessEnv): InjectionFiles {
  const chart = findChartFiles(binDir, env);
  const template = readFileSync(chart.template, 'utf8');
  const values = injectorValues(parse(readFileSync(chart.values, 'utf8')) as unknown);
  return {
    source: chart.template,
    injectConfig: stringify({
      policy: 'enabled',
      alwaysInjectSelector: [],
      neverInjectSelector: [],
      injectedAnnotations: {},
      defaultTemplates: ['sidecar'],
      templates: { sidecar: template },
    }),
    values: `${JSON.stringify(values, null, 2)}\n`,
    mesh: stringify(DEFAULT_MESH),
  };
}
