/**
 * The flags that say what to ask istiod, shared by `generate` and `serve --from-istio`
 * (docs/generate.md).
 */
import { OUTBOUND_TRAFFIC_POLICIES, type GenerateOptions } from '../../generate/generate.js';
import { parseChoice } from '../args.js';
import { parseImportFlags, type ImportFlagValues } from './import-flags.js';

export const GENERATE_FLAGS = {
  pod: { type: 'string' },
  node: { type: 'string' },
  mesh: { type: 'string' },
  'outbound-traffic-policy': { type: 'string' },
  proxyless: { type: 'boolean' },
} as const;

export const GENERATE_USAGE = `  --pod <name>             the pod to ask for (default: the first Pod or Deployment)
  --node <id>              the node id to ask with (default: the pod's sidecar,
                           sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local)
  --mesh <file>            a MeshConfig (YAML) over istiod's defaults (or give the istio
                           ConfigMap among the YAML files)
  --outbound-traffic-policy <ALLOW_ANY|REGISTRY_ONLY>
                           the mesh's outboundTrafficPolicy.mode (istiod's default ALLOW_ANY)
  --proxyless              ask as the pod's proxyless gRPC application (GENERATOR grpc):
                           every service's client listener, the pod's server listeners, their
                           routes, clusters and endpoints (default for a pod annotated
                           inject.istio.io/templates: grpc-agent)
`;

export interface GenerateFlagValues extends ImportFlagValues {
  pod?: string;
  node?: string;
  mesh?: string;
  'outbound-traffic-policy'?: string;
  proxyless?: boolean;
}

/** What to ask istiod-ref for: the pod the flags name, with the import's rewrites they choose. */
export function generateOptionsFromFlags(
  files: readonly string[],
  values: GenerateFlagValues,
  tlsDir: string | undefined,
  env: NodeJS.ProcessEnv,
): GenerateOptions {
  const policy = values['outbound-traffic-policy'];
  return {
    files,
    ...(values.pod !== undefined && { pod: values.pod }),
    ...(values.node !== undefined && { nodeId: values.node }),
    ...(values.mesh !== undefined && { meshFile: values.mesh }),
    ...(values.proxyless !== undefined && { proxyless: values.proxyless }),
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
  };
}
