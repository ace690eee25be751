/**
 * `mock-istiod capture --admin <host:port> [-o <file>]`: a live Envoy's configuration, as its
 * admin API prints it with endpoints (`/config_dump?include_eds`), for `import` or `serve
 * --from-config-dump`. With `kubectl port-forward <pod> 15000` it reaches a real sidecar.
 */
import { writeFileSync } from 'node:fs';
import { EnvoyAdminClient } from '../../envoy/admin-client.js';
import { dumpConfigs } from '../../import/dump-sections.js';
import { parseHostPort } from '../../import/json-walk.js';
import { MockIstiodError } from '../../util/errors.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';

export const CAPTURE_USAGE = `Usage: mock-istiod capture --admin <host:port> [-o <file>]

Saves a running Envoy's /config_dump?include_eds (its admin API) as JSON, for
mock-istiod import or serve --from-config-dump (docs/import.md).

Options:
  --admin <host:port>      Envoy's admin address (a sidecar's: 15000, through a port-forward)
  -o, --output <file>      where to write (default: stdout)
  --timeout <ms>           how long to wait for the answer (default 10000)
  -h, --help               show this help
`;

const OPTIONS = {
  admin: { type: 'string' },
  output: { type: 'string', short: 'o' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function capture(argv: string[]): Promise<number> {
  const values = parseFlags(argv, OPTIONS, CAPTURE_USAGE);
  if (!values) return 0;
  const admin = values.admin === undefined ? undefined : parseHostPort(values.admin);
  if (!admin)
    throw new MockIstiodError('USAGE', `--admin: expected host:port, got "${values.admin ?? ''}"`);
  const timeout = Number(values.timeout ?? 10_000);
  if (!Number.isInteger(timeout) || timeout <= 0)
    throw new MockIstiodError('USAGE', `--timeout: expected milliseconds, got "${values.timeout}"`);
  const host = admin.address.includes(':') ? `[${admin.address}]` : admin.address;
  const client = new EnvoyAdminClient(`http://${host}:${admin.port}`, {
    requestTimeoutMs: timeout,
  });
  let body: string;
  try {
    const response = await client.get('/config_dump?include_eds');
    if (response.status !== 200)
      throw new Error(`answered ${response.status}: ${response.body.trim()}`);
    body = response.body;
  } catch (err) {
    const reason =
      err instanceof Error
        ? ((err.cause as Error | undefined)?.message ?? err.message)
        : String(err);
    return fail(`cannot read ${client.adminUrl}/config_dump: ${reason}`, 1);
  }
  const configs = dumpConfigs(parseJson(body));
  if (!configs) return fail(`${client.adminUrl}/config_dump did not answer a config_dump`, 1);
  if (values.output) writeFileSync(values.output, body);
  else process.stdout.write(body);
  process.stderr.write(
    `captured ${configs.length} section(s) from ${client.adminUrl}${values.output ? ` into ${values.output}` : ''}\n`,
  );
  return 0;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
