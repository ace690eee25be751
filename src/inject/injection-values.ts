/**
 * The seed's interception numbers (shared/seeds, chapter 003), read back out of real
 * `istioctl kube-inject` output: each value with where it was found (the document, the
 * container, the argument or field), beside the value the seed expects from a default
 * install. A value the output does not have reads as `undefined` with `where: not found`.
 */
import { parseAllDocuments } from 'yaml';
import { isObject, objectOr, objectsIn } from '../util/guards.js';
import { SEED_INJECTION_VALUES as SEED } from '../explain/injection-values.js';

export interface InjectionValue {
  /** A stable key for scripts (`outboundCapturePort`, …). */
  key: string;
  /** What the value is, in the seed's words. */
  what: string;
  value: string | undefined;
  /** The value a default install writes (the seed's table). */
  seed: string;
  /** Where in the output it was found: `<container> <field path>`, or `not found`. */
  where: string;
}

type Obj = Record<string, unknown>;

/** The kinds whose pod template is at `spec.template`; a Pod's spec is its own. */
const TEMPLATED = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

interface Pod {
  kind: string;
  /** `spec.template` or `` for a Pod, to name fields as they are in the file. */
  prefix: string;
  metadata: Obj;
  spec: Obj;
}

/** The first workload with a pod spec in the (multi-document) YAML. */
export function findPod(yamlText: string): Pod | undefined {
  for (const doc of parseAllDocuments(yamlText)) {
    const value: unknown = doc.toJS();
    if (!isObject(value) || typeof value['kind'] !== 'string') continue;
    const spec = objectOr(value['spec']);
    if (value['kind'] === 'Pod') {
      return { kind: 'Pod', prefix: '', metadata: objectOr(value['metadata']), spec };
    }
    if (TEMPLATED.has(value['kind'])) {
      const template = objectOr(spec['template']);
      return {
        kind: value['kind'],
        prefix: 'spec.template.',
        metadata: objectOr(template['metadata']),
        spec: objectOr(template['spec']),
      };
    }
  }
  return undefined;
}

interface Found {
  value: string | undefined;
  where: string;
}

/** A YAML scalar as the file writes it; a list as its items joined with commas. */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map((v) => text(v) ?? '').join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const NOT_FOUND: Found = { value: undefined, where: 'not found' };

function container(pod: Pod, list: 'containers' | 'initContainers', name: string) {
  const items = objectsIn(pod.spec[list]);
  const index = items.findIndex((c) => c['name'] === name);
  const found = items[index];
  return found ? { c: found, at: `${name} ${pod.prefix}spec.${list}[${index}]` } : undefined;
}

/** `istio-init`'s `-x <value>` argument (the value after the flag). */
function initArg(pod: Pod, flag: string): Found {
  const init = container(pod, 'initContainers', 'istio-init');
  if (!init) return NOT_FOUND;
  const args = Array.isArray(init.c['args']) ? (init.c['args'] as unknown[]) : [];
  const i = args.indexOf(flag);
  if (i < 0 || i + 1 >= args.length) return NOT_FOUND;
  return { value: String(args[i + 1]), where: `${init.at}.args[${i + 1}] (after ${flag})` };
}

/** A field of a container by dotted path, e.g. `securityContext.runAsUser`. */
function field(pod: Pod, list: 'containers' | 'initContainers', name: string, path: string): Found {
  const found = container(pod, list, name);
  if (!found) return NOT_FOUND;
  let value: unknown = found.c;
  for (const part of path.split('.')) value = isObject(value) ? value[part] : undefined;
  if (value === undefined) return NOT_FOUND;
  return {
    value: text(value),
    where: `${found.at}.${path}`,
  };
}

function namedPort(pod: Pod, name: string): Found {
  const proxy = container(pod, 'containers', 'istio-proxy');
  if (!proxy) return NOT_FOUND;
  const ports = objectsIn(proxy.c['ports']);
  const i = ports.findIndex((p) => p['name'] === name);
  const port = ports[i];
  if (!port) return NOT_FOUND;
  return {
    value: String(port['containerPort']),
    where: `${proxy.at}.ports[${i}].containerPort (${name})`,
  };
}

function annotation(pod: Pod, name: string): Found {
  const value = objectOr(pod.metadata['annotations'])[name];
  if (value === undefined) return NOT_FOUND;
  return { value: text(value), where: `pod ${pod.prefix}metadata.annotations["${name}"]` };
}

function containerNames(pod: Pod): Found {
  const names = objectsIn(pod.spec['containers']).map((c) => String(c['name']));
  const inits = objectsIn(pod.spec['initContainers']).map((c) => String(c['name']));
  if (names.length === 0) return NOT_FOUND;
  return {
    value: `${names.join(',')} (init ${inits.join(',') || 'none'})`,
    where: `pod ${pod.prefix}spec.containers[*].name, initContainers[*].name`,
  };
}

function readiness(pod: Pod): Found {
  const port = field(pod, 'containers', 'istio-proxy', 'readinessProbe.httpGet.port');
  const path = field(pod, 'containers', 'istio-proxy', 'readinessProbe.httpGet.path');
  if (port.value === undefined) return NOT_FOUND;
  return {
    value: `${port.value} ${path.value ?? ''}`.trim(),
    where: port.where.replace(/\.port$/, ''),
  };
}

const P = 'istio-proxy';
const I = 'istio-init';

/** The seed's securityContext settings of the sidecar and of the init container. */
const SECURITY_ROWS = [
  ['proxyRunAsUser', 'proxy', 'runAsUser', String(SEED.proxyUid)],
  ['proxyRunAsNonRoot', 'proxy', 'runAsNonRoot', 'true'],
  ['proxyCapsDrop', 'proxy', 'capabilities.drop', 'ALL'],
  ['initRunAsUser', 'init', 'runAsUser', '0'],
  ['initRunAsNonRoot', 'init', 'runAsNonRoot', 'false'],
  ['initCapsAdd', 'init', 'capabilities.add', 'NET_ADMIN,NET_RAW'],
] as const;

/** A row of the table: key, what it is, the seed's value, what the pod says. */
type Row = [string, string, string, Found];

/** Every value of the seed's table, in its order, read from `pod`. */
export function readInjectionValues(pod: Pod, appContainer?: string): InjectionValue[] {
  const app = appContainer ?? text(objectsIn(pod.spec['containers'])[0]?.['name']) ?? 'app';
  const rows: Row[] = [
    [
      'containers',
      'containers after injection',
      `${app},istio-proxy (init istio-init)`,
      containerNames(pod),
    ],
    [
      'outboundCapturePort',
      'istio-init -p (outbound capture port)',
      String(SEED.outboundCapturePort),
      initArg(pod, '-p'),
    ],
    [
      'inboundCapturePort',
      'istio-init -z (inbound capture port)',
      String(SEED.inboundCapturePort),
      initArg(pod, '-z'),
    ],
    [
      'excludedUid',
      'istio-init -u (UID excluded from capture)',
      String(SEED.proxyUid),
      initArg(pod, '-u'),
    ],
    ['mode', 'istio-init -m (mode)', SEED.mode, initArg(pod, '-m')],
    [
      'excludedInboundPorts',
      'istio-init -d (inbound ports excluded)',
      SEED.excludedInboundPorts.join(','),
      initArg(pod, '-d'),
    ],
    [
      'readinessProbe',
      'readiness probe port and path',
      `${SEED.readinessPort} /healthz/ready`,
      readiness(pod),
    ],
    [
      'prometheusPort',
      'merged metrics port (prometheus.io/port)',
      String(SEED.mergedMetricsPort),
      annotation(pod, 'prometheus.io/port'),
    ],
    [
      'prometheusPath',
      'metrics path (prometheus.io/path)',
      '/stats/prometheus',
      annotation(pod, 'prometheus.io/path'),
    ],
    ['prometheusScrape', 'prometheus.io/scrape', 'true', annotation(pod, 'prometheus.io/scrape')],
    [
      'envoyPromPort',
      'http-envoy-prom port',
      String(SEED.envoyPromPort),
      namedPort(pod, 'http-envoy-prom'),
    ],
    ...SECURITY_ROWS.map(([key, container, setting, seed]): Row => {
      const [list, name] =
        container === 'proxy' ? (['containers', P] as const) : (['initContainers', I] as const);
      return [
        key,
        `${name} ${setting.replace('.', ' ')}`,
        seed,
        field(pod, list, name, `securityContext.${setting}`),
      ];
    }),
  ];
  return rows.map(([key, what, seed, found]) => ({
    key,
    what,
    value: found.value,
    seed,
    where: found.where,
  }));
}
