/**
 * Where `explain` takes its injection values from: the seed's table (a default install,
 * src/explain/injection-values.ts), or real `istioctl kube-inject` output, read the way
 * `mock-istiod inject` reads it (src/inject/injection-values.ts). The output is either the
 * injected YAML itself (`mock-istiod inject > injected.yaml`, or istioctl's own) or
 * `mock-istiod inject --json`'s body, whose `injected` field holds it.
 */
import { SEED_INJECTION_VALUES, type InjectionValues } from '../explain/injection-values.js';
import { findPod, readInjectionValues, type InjectionValue } from '../inject/injection-values.js';
import { kubeInject } from '../inject/kube-inject.js';
import { LAB_DEPLOYMENT_YAML } from '../inject/lab-deployment.js';
import { MockIstiodError } from '../util/errors.js';
import { objectsIn } from '../util/guards.js';
import type { Problem, Result } from '../util/problems.js';

export interface ValuesSource {
  /** `seed`: the seed's table; `inject`: read from kube-inject output. */
  kind: 'seed' | 'inject';
  /** In words, for the output's first line. */
  description: string;
  values: InjectionValues;
  /** For `inject`: each value that differs from the seed's, `<what>: <injected> (seed <seed>)`. */
  differences: string[];
}

export const SEED_SOURCE: ValuesSource = Object.freeze({
  kind: 'seed',
  description: "the seed's table (a default install)",
  values: SEED_INJECTION_VALUES,
  differences: [],
});

/** The injected YAML in `text`: itself, or the `injected` field of `inject --json`'s body. */
function injectedYaml(text: string): Result<string> {
  if (!text.trimStart().startsWith('{')) return { ok: true, value: text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `not JSON: ${(err as Error).message}` }] };
  }
  const injected = (body as Record<string, unknown> | null)?.['injected'];
  if (typeof injected !== 'string')
    return {
      ok: false,
      problems: [
        {
          path: 'injected',
          message: 'expected the injected YAML as a string (the body of mock-istiod inject --json)',
        },
      ],
    };
  return { ok: true, value: injected };
}

function port(row: InjectionValue | undefined, problems: Problem[]): number {
  const text = row?.value?.split(' ')[0];
  const n = Number(text);
  if (text === undefined || !Number.isInteger(n) || n < 1 || n > 65535) {
    problems.push({
      path: row?.key ?? '',
      message: `expected a port (${row?.what ?? 'value'}), found ${text === undefined ? 'none' : `"${text}"`} (${row?.where ?? 'not found'})`,
    });
    return 0;
  }
  return n;
}

/** The values explain uses, from the rows `inject` reads; a problem for each one missing. */
export function valuesFromRows(rows: readonly InjectionValue[]): Result<InjectionValues> {
  const by = (key: string) => rows.find((r) => r.key === key);
  const problems: Problem[] = [];
  const mode = by('mode')?.value;
  if (mode !== 'REDIRECT' && mode !== 'TPROXY')
    problems.push({
      path: 'mode',
      message: `expected istio-init -m REDIRECT or TPROXY, found ${mode === undefined ? 'none' : `"${mode}"`} (${by('mode')?.where ?? 'not found'})`,
    });
  const excludedRow = by('excludedInboundPorts');
  const excluded = (excludedRow?.value ?? '')
    .split(',')
    .filter((p) => p.trim() !== '')
    .map((p) => port({ ...(excludedRow as InjectionValue), value: p.trim() }, problems));
  const uid = Number(by('excludedUid')?.value);
  if (!Number.isInteger(uid) || uid < 0)
    problems.push({
      path: 'excludedUid',
      message: `expected istio-init -u <uid>, found ${by('excludedUid')?.value ?? 'none'} (${by('excludedUid')?.where ?? 'not found'})`,
    });
  const values: InjectionValues = {
    outboundCapturePort: port(by('outboundCapturePort'), problems),
    inboundCapturePort: port(by('inboundCapturePort'), problems),
    proxyUid: uid,
    mode: mode === 'TPROXY' ? 'TPROXY' : 'REDIRECT',
    excludedInboundPorts: excluded,
    readinessPort: port(by('readinessProbe'), problems),
    mergedMetricsPort: port(by('prometheusPort'), problems),
    envoyPromPort: port(by('envoyPromPort'), problems),
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: values };
}

function fromYaml(yaml: string, origin: string): ValuesSource {
  const pod = findPod(yaml);
  if (!pod)
    throw new MockIstiodError(
      'USAGE',
      `${origin}: expected istioctl kube-inject output (a Deployment, Pod or other pod template), found none`,
    );
  const names = objectsIn(pod.spec['containers']).map((c) => c['name']);
  if (!names.includes('istio-proxy'))
    throw new MockIstiodError(
      'USAGE',
      `${origin}: the ${pod.kind} has no istio-proxy container (containers: ${names.join(', ') || 'none'}); expected istioctl kube-inject output (mock-istiod inject -f <file> writes it)`,
    );
  const rows = readInjectionValues(pod);
  const values = valuesFromRows(rows);
  if (!values.ok)
    throw MockIstiodError.fromProblems(
      'USAGE',
      `${origin}: not the injection values explain needs`,
      values.problems,
    );
  const differences = rows
    .filter((r) => r.value !== undefined && r.value !== r.seed && r.key !== 'containers')
    .map((r) => `${r.what}: ${r.value ?? ''} (seed ${r.seed})`);
  return {
    kind: 'inject',
    description: `istioctl kube-inject output (${origin})`,
    values: values.value,
    differences,
  };
}

/** `--inject <file>`: the text of an injection output; `origin` names it in every message. */
export function sourceFromInjection(text: string, origin: string): ValuesSource {
  const yaml = injectedYaml(text);
  if (!yaml.ok)
    throw MockIstiodError.fromProblems('USAGE', `${origin}: not injection output`, yaml.problems);
  try {
    return fromYaml(yaml.value, origin);
  } catch (err) {
    if (err instanceof MockIstiodError) throw err;
    throw new MockIstiodError('USAGE', `${origin}: cannot read it as YAML: ${String(err)}`);
  }
}

/**
 * `--from-inject`: the real istioctl on the lab's Deployment. Throws ISTIO_NOT_FOUND when the
 * binaries are missing; a failed run is the message to print (not a user's mistake).
 */
export async function sourceFromLabInjection(
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true; source: ValuesSource } | { ok: false; message: string }> {
  const result = await kubeInject({ input: LAB_DEPLOYMENT_YAML, env });
  if (!result.ok)
    return {
      ok: false,
      message: `--from-inject: ${result.message}; its stderr: ${result.stderr.trim()}`,
    };
  return {
    ok: true,
    source: fromYaml(result.yaml, "istioctl kube-inject of the lab's orders-v1 Deployment"),
  };
}
