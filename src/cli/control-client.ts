/**
 * How the client commands (`proxy-status`, `status`) reach a running mock: its control API,
 * by default on 127.0.0.1:15014 (`--control-host`, `--control-port`, or the environment
 * variables `serve` reads). A mock that does not answer is reported in one line.
 */
import { DEFAULT_HOST } from '../app/options.js';
import { formatEndpoint } from '../core/endpoint.js';
import { isMockIstiodError, MockIstiodError } from '../util/errors.js';
import { parsePort } from './args.js';

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

/** The mock could not be asked (not running, wrong port, not a mock): `CONTROL_API_FAILED`. */
export function controlApiError(message: string): MockIstiodError<'CONTROL_API_FAILED'> {
  return new MockIstiodError('CONTROL_API_FAILED', message);
}

function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time';
  return err instanceof Error ? err.message : String(err);
}

/** GETs a JSON endpoint of the mock. */
export async function getControlJson<T>(
  target: ControlTarget,
  path: string,
  timeoutMs = 5_000,
): Promise<T> {
  const { address } = target;
  const body = await getControlText(target, path, timeoutMs);
  try {
    return JSON.parse(body) as T;
  } catch {
    throw controlApiError(`${address} answered ${path} with something other than JSON`);
  }
}

/** GETs an endpoint of the mock; its body as text (`/ca/root-cert` answers PEM). */
export async function getControlText(
  target: ControlTarget,
  path: string,
  timeoutMs = 5_000,
): Promise<string> {
  const { address, token } = target;
  let response: Response;
  try {
    response = await fetch(`http://${address}${path}`, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  } catch (err) {
    throw controlApiError(
      `cannot reach mock-istiod at ${address} (${reasonOf(err)}); is \`mock-istiod serve\` running there? (--control-host, --control-port)`,
    );
  }
  const body = await response.text();
  if (response.status !== 200) {
    throw controlApiError(
      `mock-istiod at ${address} answered ${response.status} to ${path}: ${body.trim()}`,
    );
  }
  return body;
}

/**
 * Runs a client command: a mock that cannot be asked is reported in one line on stderr with
 * exit code 1 (the command was right, the world was not); anything else propagates.
 */
export async function reportControlErrors(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (!isMockIstiodError(err, 'CONTROL_API_FAILED')) throw err;
    process.stderr.write(`mock-istiod: ${err.message}\n`);
    return 1;
  }
}

/** An answer of the control API: its status and parsed JSON body. */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

/**
 * Sends a request to the control API and returns its answer, whatever its status (the
 * caller tells a refusal from success); unreachable or not JSON is `CONTROL_API_FAILED`.
 */
export async function callControl(
  target: ControlTarget,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<ControlAnswer> {
  const { address, token } = target;
  let response: Response;
  try {
    response = await fetch(`http://${address}${path}`, {
      method,
      signal: AbortSignal.timeout(timeoutMs),
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    throw controlApiError(
      `cannot reach mock-istiod at ${address} (${reasonOf(err)}); is \`mock-istiod serve\` running there? (--control)`,
    );
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw controlApiError(
      `${address} answered ${method} ${path} with ${response.status} and something other than JSON`,
    );
  }
}
