/**
 * `mock-istiod inject`: the real `istioctl kube-inject`, offline, on a Deployment or Pod
 * (the lab's `orders-v1` when no file is given); prints the injected YAML, then the seed's
 * interception numbers read back from it, each with where it was found (src/inject/).
 */
import { readFileSync } from 'node:fs';
import {
  findPod,
  readInjectionValues,
  type InjectionValue,
} from '../../inject/injection-values.js';
import { kubeInject } from '../../inject/kube-inject.js';
import { LAB_DEPLOYMENT_YAML } from '../../inject/lab-deployment.js';
import { isMockIstiodError } from '../../util/errors.js';
import { formatTable } from '../client/tabwriter.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';

export const INJECT_USAGE = `Usage: mock-istiod inject [-f <deploy.yaml>] [--json]

Runs the real istioctl (\`npm run install-istio\` builds it) offline:
  istioctl kube-inject -f <yaml> --injectConfigFile … --meshConfigFile … --valuesFile … -r default
with the sidecar injection template and values of Istio's istio-discovery chart at the pinned
version, and no cluster (KUBECONFIG names no file, HOME is empty). Prints the injected YAML,
then the interception numbers of the sidecar lab read back from it: each value, the value a
default install writes (SEED), and where it was found (container and field).

  -f, --filename <file>   the Deployment or Pod to inject (default: the lab's orders-v1 on 8101)
  --hub <registry>        the sidecar image's registry (the chart's global.hub, docker.io/istio)
  --image <name>          its name under the hub (global.proxy.image, proxyv2)
  --tag <tag>             its tag (global.tag)
  --image-pull-policy <p> Always, IfNotPresent or Never (global.imagePullPolicy)
  --yaml-only             print only the injected YAML (to pipe into kubectl apply -f -)
  --json                  print {"command", "injected", "values"} instead
  -h, --help              show this help
`;

const OPTIONS = {
  filename: { type: 'string', short: 'f' },
  hub: { type: 'string' },
  image: { type: 'string' },
  tag: { type: 'string' },
  'image-pull-policy': { type: 'string' },
  'yaml-only': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const PULL_POLICIES: readonly string[] = ['Always', 'IfNotPresent', 'Never'];
type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export async function inject(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, INJECT_USAGE);
  if (!values) return 0;
  let input = LAB_DEPLOYMENT_YAML;
  if (values.filename !== undefined) {
    try {
      input = readFileSync(values.filename, 'utf8');
    } catch (err) {
      return fail(`-f ${values.filename}: cannot read it (${(err as Error).message})`, 2);
    }
  }
  const pullPolicy = values['image-pull-policy'];
  if (pullPolicy !== undefined && !PULL_POLICIES.includes(pullPolicy)) {
    return fail(
      `--image-pull-policy ${pullPolicy}: expected one of ${PULL_POLICIES.join(', ')}`,
      2,
    );
  }
  const images = {
    ...(values.hub !== undefined && { hub: values.hub }),
    ...(values.image !== undefined && { image: values.image }),
    ...(values.tag !== undefined && { tag: values.tag }),
    ...(pullPolicy !== undefined && { pullPolicy: pullPolicy as PullPolicy }),
  };
  let result;
  try {
    result = await kubeInject({ input, env, images });
  } catch (err) {
    if (isMockIstiodError(err, 'ISTIO_NOT_FOUND')) return fail(err.message, 1);
    throw err;
  }
  if (!result.ok) {
    const quoted = result.stderr
      .trim()
      .split('\n')
      .map((line) => `  | ${line}`)
      .join('\n');
    return fail(`${result.message}; its stderr:\n${quoted}`, 1);
  }
  const pod = findPod(result.yaml);
  if (!pod) return fail('istioctl kube-inject printed no Deployment, Pod or other pod template', 1);
  const rows = readInjectionValues(pod);
  if (values['yaml-only']) {
    process.stdout.write(`${result.yaml.replace(/\n?---\s*$/, '')}\n`);
  } else if (values.json) {
    const body = { command: result.args.join(' '), injected: result.yaml, values: rows };
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  } else {
    process.stdout.write(`${result.yaml.replace(/\n?---\s*$/, '')}\n---\n`);
    process.stdout.write(`# read from the output above (${result.args.join(' ')}):\n`);
    process.stdout.write(formatValues(rows));
  }
  return 0;
}

/** The table: WHAT, VALUE, SEED (`=` when the output agrees with the seed), WHERE. */
export function formatValues(rows: readonly InjectionValue[]): string {
  return formatTable(
    [
      ['WHAT', 'VALUE', 'SEED', 'WHERE'],
      ...rows.map((r) => [r.what, r.value ?? '-', r.value === r.seed ? '=' : r.seed, r.where]),
    ],
    3,
  );
}
