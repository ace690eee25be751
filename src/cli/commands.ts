/**
 * The subcommands of `mock-istiod`, in one table: a command adds one line here.
 */
import { serve } from './serve.js';
import { proxyStatus } from './proxy-status.js';
import { status } from './status.js';
import { bootstrap } from './bootstrap.js';
import { agent } from './agent.js';
import { pilotAgent } from './pilot-agent.js';
import { token } from './token.js';
import { installEnvoy } from './install-envoy.js';
import { importCommand } from './import.js';
import { capture } from './capture.js';
import { certs } from './certs.js';
import { CONTROL_VERBS } from './control-verbs.js';
import { fault } from './fault.js';
import { journal } from './journal.js';

export interface Command {
  summary: string;
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  serve: { summary: "serve xDS like istiod, with the sidecar lab's resources", run: serve },
  'proxy-status': {
    summary: "each proxy's sync status per type, like istioctl proxy-status",
    run: proxyStatus,
  },
  status: { summary: "the mock's view of each proxy beside its Envoy's own", run: status },
  bootstrap: { summary: 'write the Envoy bootstrap pilot-agent would write', run: bootstrap },
  agent: { summary: 'play pilot-agent: Envoy, readiness, the pod view', run: agent },
  'pilot-agent': {
    summary: 'run the real pilot-agent (npm run install-istio) against the mock',
    run: pilotAgent,
  },
  token: { summary: "mint a service account token for the mock's CA service", run: token },
  'install-envoy': {
    summary: 'install the pinned Envoy where the library looks for it (needs Python 3)',
    run: installEnvoy,
  },
  import: { summary: 'write a captured Envoy config_dump as a resource file', run: importCommand },
  capture: { summary: "save a running Envoy's config_dump (with endpoints)", run: capture },
  certs: { summary: 'make the TLS directory serve --tls-dir uses, and exit', run: certs },
  ...CONTROL_VERBS,
  fault: { summary: 'fault add|ls|rm on a running mock', run: fault },
  journal: { summary: "a running mock's journal; --follow keeps printing", run: journal },
};
