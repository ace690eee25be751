/**
 * The flags that say what to ask istiod, shared by `generate` and `serve --from-istio`
 * (docs/generate.md), and the one place the answer's report is turned into lines.
 */
import {
  generateForPod,
  OUTBOUND_TRAFFIC_POLICIES,
  type Generated,
} from '../../generate/generate.js';
import { formatReport } from '../../import/report.js';
import type { ResourceSetSpec } from '../../snapshot/validated-set.js';
import { parseChoice } from '../args.js';
import { parseImportFlags, type ImportFlagValues } from './import-flags.js';

export const GENERATE_FLAGS = {
  pod: { type: 'string' },
  node: { type: 'string' },
  mesh: { type: 'string' },
  'outbound-traffic-policy': { type: 'string' },
} as const;

export const GENERATE_USAGE = `  --pod <name>             the pod to ask for (default: the first Pod or Deployment)
  --node <id>              the node id to ask with (default: the pod's sidecar,
                           sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local)
  --mesh <file>            a MeshConfig (YAML) over istiod's defaults (or give the istio
                           ConfigMap among the YAML files)
  --outbound-traffic-policy <ALLOW_ANY|REGISTRY_ONLY>
                           the mesh's outboundTrafficPolicy.mode (istiod's default ALLOW_ANY)
`;

export interface GenerateFlagValues extends ImportFlagValues {
  pod?: string;
  node?: string;
  mesh?: string;
  'outbound-traffic-policy'?: string;
}

/** Asks istiod-ref for the pod the flags name, with the import's rewrites they choose. */
export function generateFromFlags(
  files: readonly string[],
  values: GenerateFlagValues,
  tlsDir: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Generated> {
  const policy = values['outbound-traffic-policy'];
  return generateForPod({
    files,
    ...(values.pod !== undefined && { pod: values.pod }),
    ...(values.node !== undefined && { nodeId: values.node }),
    ...(values.mesh !== undefined && { meshFile: values.mesh }),
    ...(policy !== undefined && {
      outboundTrafficPolicy: parseChoice(
        '--outbound-traffic-policy',
        policy,
        OUTBOUND_TRAFFIC_POLICIES,
        'ALLOW_ANY',
      ),
    }),
    rewrites: parseImportFlags(values, tlsDir),
    env,
  });
}

/** What was asked and what came back, then the import report, one line each. */
export function generatedLines(generated: Generated): string[] {
  const { pod, node, sent } = generated;
  const counts = Object.entries(sent)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
  return [
    `asked istiod for pod ${pod.namespace}/${pod.name} (${pod.ip}) as ${node.id}`,
    `istiod sent: ${counts}`,
    ...formatReport(generated.imported.report),
  ];
}

/** `serve --from-istio`: the generated set as the `resources` option takes it, the report logged. */
export async function generatedResources(
  files: readonly string[],
  values: GenerateFlagValues,
  tlsDir: string | undefined,
  env: NodeJS.ProcessEnv,
  log: { info(msg: string): void },
): Promise<ResourceSetSpec[]> {
  const generated = await generateFromFlags(files, values, tlsDir, env);
  for (const line of generatedLines(generated)) log.info(`generate: ${line.trim()}`);
  return [generated.imported.spec];
}
