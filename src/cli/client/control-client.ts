/**
 * How the client commands (`proxy-status`, `status`, the verbs) reach a running mock: its
 * control API, by default on 127.0.0.1:15014 (`--control`, `--control-host`, `--control-port`,
 * or the environment variables `serve` reads), through the one control client
 * (src/api/client.ts). A mock that cannot be asked is reported in one line.
 */
import { createControlClient, type ControlClient } from '../../api/client.js';
import { DEFAULT_HOST } from '../../app/options.js';
import { formatEndpoint } from '../../core/endpoint.js';
import { isMockIstiodError, MockIstiodError } from '../../util/errors.js';
import { parsePort } from '../args.js';

export const CONTROL_FLAGS = {
  control: { type: 'string' },
  'control-host': { type: 'string' },
  'control-port': { type: 'string' },
  'control-token': { type: 'string' },
} as const;

export const CONTROL_HELP = `  --control <url>          the mock's control API as a URL, e.g. http://10.0.0.5:15014 [MOCK_ISTIOD_CONTROL]
                           (instead of --control-host and --control-port)
  --control-host <addr>    the mock's control API address [MOCK_ISTIOD_CONTROL_HOST] (default ${DEFAULT_HOST})
  --control-port <port>    the mock's control API port [MOCK_ISTIOD_CONTROL_PORT] (default 15014)
  --control-token <token>  bearer token, if the mock requires one [MOCK_ISTIOD_CONTROL_TOKEN]`;

/** Where the mock's control API is, and the token it may require. */
export interface ControlTarget {
  /** `host:port` */
  address: string;
  token?: string;
}

/** The control API the flags and environment name. */
export function controlTarget(
  values: {
    control?: string;
    'control-host'?: string;
    'control-port'?: string;
    'control-token'?: string;
  },
  env: NodeJS.ProcessEnv,
): ControlTarget {
  const token = values['control-token'] ?? env.MOCK_ISTIOD_CONTROL_TOKEN;
  const address = controlAddress(values, env);
  return token ? { address, token } : { address };
}

/** `host:port` of the control API. */
export function controlAddress(
  values: { control?: string; 'control-host'?: string; 'control-port'?: string },
  env: NodeJS.ProcessEnv,
): string {
  if (values.control !== undefined && (values['control-host'] ?? values['control-port'])) {
    throw new MockIstiodError(
      'USAGE',
      '--control: give the URL, or --control-host and --control-port, not both',
    );
  }
  const url = values.control ?? env.MOCK_ISTIOD_CONTROL;
  if (url !== undefined && url !== '') return addressOfUrl(url);
  const host = values['control-host'] ?? env.MOCK_ISTIOD_CONTROL_HOST ?? DEFAULT_HOST;
  const port = parsePort(
    '--control-port',
    values['control-port'] ?? env.MOCK_ISTIOD_CONTROL_PORT,
    15014,
  );
  return formatEndpoint({ host, port });
}

function addressOfUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' || url.pathname !== '/' || url.search !== '') {
    throw new MockIstiodError(
      'USAGE',
      `--control: expected the control API's URL such as http://127.0.0.1:15014, got "${text}"`,
    );
  }
  return url.port ? url.host : `${url.host}:80`;
}

/** The control client for the mock the flags name. */
export function clientFor(
  target: ControlTarget,
  options: { timeoutMs?: number; hint?: string } = {},
): ControlClient {
  return createControlClient({
    baseUrl: `http://${target.address}`,
    ...(target.token ? { token: target.token } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    unreachableHint:
      options.hint ??
      'is `mock-istiod serve` running there? (--control, or --control-host and --control-port)',
  });
}

/** The line for a token the mock turned down (401). */
function tokenRefused(target: ControlTarget): MockIstiodError<'CONTROL_API_FAILED'> {
  return new MockIstiodError(
    'CONTROL_API_FAILED',
    `mock-istiod at ${target.address} wants a token: --control-token or MOCK_ISTIOD_CONTROL_TOKEN`,
  );
}

/**
 * Runs a client command: a mock that cannot be asked (not reachable, a token refused, a
 * failure, or a refusal the command does not handle itself) is reported in one line on
 * stderr with exit code 1 (the command was right, the world was not); anything else
 * propagates.
 */
export async function reportControlErrors(
  target: ControlTarget,
  run: () => Promise<number>,
): Promise<number> {
  try {
    return await run();
  } catch (raw) {
    const err =
      isMockIstiodError(raw, 'CONTROL_REFUSED') && raw.details.status === 401
        ? tokenRefused(target)
        : raw;
    if (isMockIstiodError(err, 'CONTROL_REFUSED')) {
      process.stderr.write(
        `mock-istiod: mock-istiod at ${target.address} answered ${err.details.status}: ${err.message}\n`,
      );
      return 1;
    }
    if (!isMockIstiodError(err, 'CONTROL_API_FAILED')) throw err;
    process.stderr.write(`mock-istiod: ${err.message}\n`);
    return 1;
  }
}
