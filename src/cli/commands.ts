/**
 * The subcommands of `mock-istiod`, in one table: a command adds one line here. Each command's
 * module is imported when that command runs, so that `serve` does not load what `agent`,
 * `import` or `certs` need (start-up pays only for the command given).
 */
import type { Command } from './command.js';
import { CONTROL_VERBS } from './client/control-verbs.js';

export type { Command } from './command.js';

type Run = Command['run'];

/** A command whose module `load` imports on first run; `name` is the function it exports. */
function lazy<K extends string>(
  summary: string,
  load: () => Promise<Record<K, Run>>,
  name: K,
): Command {
  return { summary, run: async (argv, env) => (await load())[name](argv, env) };
}

export const COMMANDS: Record<string, Command> = {
  serve: lazy(
    "serve xDS like istiod, with the sidecar lab's resources",
    () => import('./serve/serve.js'),
    'serve',
  ),
  'proxy-status': lazy(
    "each proxy's sync status per type, like istioctl proxy-status",
    () => import('./client/proxy-status.js'),
    'proxyStatus',
  ),
  status: lazy(
    "the mock's view of each proxy beside its Envoy's own",
    () => import('./client/status.js'),
    'status',
  ),
  bootstrap: lazy(
    'write the Envoy bootstrap pilot-agent would write',
    () => import('./pod/bootstrap.js'),
    'bootstrap',
  ),
  agent: lazy(
    'play pilot-agent: Envoy, readiness, the pod view',
    () => import('./pod/agent.js'),
    'agent',
  ),
  'pilot-agent': lazy(
    'run the real pilot-agent (npm run install-istio) against the mock',
    () => import('./pod/pilot-agent.js'),
    'pilotAgent',
  ),
  inject: lazy(
    'the real istioctl kube-inject, offline, and the interception numbers in its output',
    () => import('./pod/inject.js'),
    'inject',
  ),
  token: lazy(
    "mint a service account token for the mock's CA service",
    () => import('./pod/token.js'),
    'token',
  ),
  'install-envoy': lazy(
    'install the pinned Envoy where the library looks for it (needs Python 3)',
    () => import('./pod/install-envoy.js'),
    'installEnvoy',
  ),
  import: lazy(
    'write a captured Envoy config_dump as a resource file',
    () => import('./serve/import.js'),
    'importCommand',
  ),
  generate: lazy(
    'write what istiod sends a pod (Kubernetes YAML in) as a resource file',
    () => import('./serve/generate.js'),
    'generateCommand',
  ),
  explain: lazy(
    'map each injection value to the Envoy object it becomes in a config_dump',
    () => import('./serve/explain.js'),
    'explainCommand',
  ),
  capture: lazy(
    "save a running Envoy's config_dump (with endpoints)",
    () => import('./serve/capture.js'),
    'capture',
  ),
  certs: lazy(
    'make the TLS directory serve --tls-dir uses, and exit',
    () => import('./serve/certs.js'),
    'certs',
  ),
  ...CONTROL_VERBS,
  fault: lazy('fault add|ls|rm on a running mock', () => import('./client/fault.js'), 'fault'),
  journal: lazy(
    "a running mock's journal; --follow keeps printing",
    () => import('./client/journal.js'),
    'journal',
  ),
};
