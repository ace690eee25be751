/**
 * `mock-istiod proxy-status [<proxy>]`: `istioctl proxy-status` against a running mock. It
 * reads `/debug/syncz` from the mock's control API and prints istioctl's table, or with
 * `-o json` istioctl's JSON.
 */
import { parseFlags } from '../flags.js';
import { MockIstiodError } from '../../util/errors.js';
import { parseChoice } from '../args.js';
import {
  CONTROL_FLAGS,
  CONTROL_HELP,
  controlTarget,
  clientFor,
  reportControlErrors,
} from './control-client.js';
import {
  errorLines,
  proxyStatusJson,
  proxyStatusTable,
  sortedProxies,
  upstreamLines,
  type SyncStatusJson,
} from './proxy-status-view.js';

export const PROXY_STATUS_USAGE = `Usage: mock-istiod proxy-status [<proxy>] [options]

Prints the synchronization status of every proxy connected to a running mock, the way
\`istioctl proxy-status\` does: per type SYNCED (the last response was ACKed), NOT SENT
(nothing sent yet, e.g. withheld), STALE (a response is unanswered), ERROR (NACKed: Envoy's
message follows the table) or IGNORED (never asked for), with the time since the last
response. <proxy> keeps the proxies whose id (<pod>.<namespace>) contains it. A proxy the
mock relays to a real istiod (serve --relay) gets lines under the table: whether istiod is
connected, and per type the version istiod last sent beside the one the proxy last ACKed.

Options (environment variable in brackets):
${CONTROL_HELP}
  -o, --output <format>    table|json (default table; json is istioctl's ClientConfig list)
  -h, --help               show this help
`;

const OPTIONS = {
  ...CONTROL_FLAGS,
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function proxyStatus(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseFlags(argv, OPTIONS, PROXY_STATUS_USAGE, { positionals: true });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw new MockIstiodError('USAGE', `expected at most one <proxy>, got ${positionals.length}`);
  }
  const output = parseChoice('--output', values.output, ['table', 'json'] as const, 'table');
  const target = controlTarget(values, env);
  return reportControlErrors(target, async () => {
    const syncz = await clientFor(target).getJson<SyncStatusJson[]>('/debug/syncz');
    print(sortedProxies(syncz, positionals[0] ?? ''), output, target.address);
    return 0;
  });
}

function print(statuses: SyncStatusJson[], output: 'table' | 'json', address: string): void {
  if (output === 'json') {
    process.stdout.write(`${JSON.stringify(proxyStatusJson(statuses), null, 4)}\n`);
    return;
  }
  process.stdout.write(proxyStatusTable(statuses, address, Date.now()));
  for (const lines of [errorLines(statuses), upstreamLines(statuses)]) {
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
