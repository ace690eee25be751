/**
 * `mock-istiod status`: both sides at once. For each proxy, the mock's view (per type:
 * status, version sent, version ACKed, last NACK) beside the Envoy's own (`/server_info`
 * state, `control_plane.connected_state`, cds/lds `update_success`, `update_rejected`,
 * `version_text`). `--watch` redraws the screen every `--interval` seconds for a classroom.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MockIstiodError } from '../../util/errors.js';
import { parseChoice } from '../args.js';
import { parseFlags } from '../flags.js';
import { CONTROL_FLAGS, CONTROL_HELP, controlTarget } from './control-client.js';
import { adminUrl, type AdminAddress } from '../../envoy/admin-address.js';
import {
  collectStatus,
  type StatusOptions,
  type StatusReport,
} from '../../status/status-report.js';
import { renderStatus } from './status-view.js';

export const STATUS_USAGE = `Usage: mock-istiod status [options]

Shows, for each proxy, the mock's view (per type: SYNCED / NOT SENT / STALE / ERROR, the
version sent and ACKed, the last NACK) beside what the Envoy itself says on its admin port
(state, control_plane.connected_state, cds/lds update_success, update_rejected,
version_text). The admin port is taken from --admin, else from the proxy's node metadata:
ENVOY_ADMIN_ADDRESS (env ISTIO_META_ENVOY_ADMIN_ADDRESS=host:port), else Istio's
PROXY_CONFIG.proxyAdminPort on 127.0.0.1. Envoys given with --admin are shown even when
they are not connected to the mock, or the mock is down.

Options (environment variable in brackets):
${CONTROL_HELP}
  --admin <addr>           an Envoy admin address (host:port or URL); repeatable
  -w, --watch              redraw every --interval seconds until Ctrl-C
  --interval <seconds>     refresh period for --watch (default 2)
  -o, --output <format>    table|json (default table; with --watch, json prints one line per refresh)
  -h, --help               show this help
`;

const OPTIONS = {
  ...CONTROL_FLAGS,
  admin: { type: 'string', multiple: true },
  watch: { type: 'boolean', short: 'w', default: false },
  interval: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Clears a terminal and moves the cursor home (ANSI). */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

function parseInterval(value: string | undefined): number {
  if (value === undefined || value === '') return 2_000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds < 0.2) {
    throw new MockIstiodError(
      'USAGE',
      `--interval: expected a number of seconds >= 0.2, got "${value}"`,
    );
  }
  return Math.round(seconds * 1000);
}

export async function status(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const values = parseFlags(argv, OPTIONS, STATUS_USAGE);
  if (!values) return 0;
  const output = parseChoice('--output', values.output, ['table', 'json'] as const, 'table');
  const target = controlTarget(values, env);
  const options: StatusOptions = {
    control: target.address,
    ...(target.token && { controlToken: target.token }),
    admins: (values.admin ?? []).map(adminUrl),
  };
  const format =
    output === 'json'
      ? (report: StatusReport) => `${JSON.stringify(report, null, values.watch ? undefined : 2)}\n`
      : renderStatus;
  if (!values.watch) {
    const report = await collectStatus(options);
    process.stdout.write(format(report));
    return report.mock.reachable ? 0 : 1;
  }
  const clear = output === 'table' && process.stdout.isTTY === true ? CLEAR_SCREEN : '';
  await watchStatus(options, parseInterval(values.interval), (report) =>
    process.stdout.write(clear + format(report)),
  );
  return 0;
}

/** Refreshes until SIGINT/SIGTERM (or `signal`), remembering every Envoy seen. */
export async function watchStatus(
  options: StatusOptions,
  intervalMs: number,
  show: (report: StatusReport) => void,
  signal?: AbortSignal,
): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  signal?.addEventListener('abort', onSignal, { once: true });
  const remembered = options.remembered ?? new Map<string, AdminAddress>();
  try {
    while (!stop.signal.aborted) {
      show(await collectStatus({ ...options, remembered }));
      await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    signal?.removeEventListener('abort', onSignal);
  }
}
