/**
 * What every command that drives a running mock shares: its flags (`--control`, the token,
 * `-o text|json`), one request, and one convention for answers and exit codes:
 *
 *   0  done; the answer is printed (one line of text, or with `-o json` the API's JSON)
 *   1  the mock could not be asked: not reachable, a token refused, or a server error
 *   2  a usage mistake, or the mock refused the request (400/404/409): the reason is printed
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isObject } from '../util/guards.js';
import { parseChoice } from './args.js';
import {
  callControl,
  CONTROL_FLAGS,
  CONTROL_HELP,
  controlApiError,
  controlTarget,
  reportControlErrors,
  type ControlAnswer,
  type ControlTarget,
} from './control-client.js';

export const OUTPUT_HELP = `  -o, --output <format>    text|json (default text; json prints the API's answer as is)`;

export const CLIENT_HELP = `${CONTROL_HELP}
${OUTPUT_HELP}
  -h, --help               show this help

Exit codes: 0 done; 1 the mock could not be asked (not reachable, token refused, server
error); 2 a usage mistake, or the mock refused the request (the reason is printed).`;

export const CLIENT_FLAGS = {
  ...CONTROL_FLAGS,
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Options = NonNullable<ParseArgsConfig['options']>;
export type ClientValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface ClientArgs {
  values: ClientValues;
  positionals: string[];
  target: ControlTarget;
  output: 'text' | 'json';
}

/**
 * Reads a client command's flags (`CLIENT_FLAGS` plus its own), or undefined after printing
 * the usage for `--help`.
 */
export function parseClientArgs(
  argv: string[],
  own: Options,
  usage: string,
  env: NodeJS.ProcessEnv,
): ClientArgs | undefined {
  const parsed = parseArgs({
    args: argv,
    options: { ...CLIENT_FLAGS, ...own },
    strict: true,
    allowPositionals: true,
  });
  const values = parsed.values as ClientValues;
  if (values.help === true) {
    process.stdout.write(usage);
    return undefined;
  }
  const output = parseChoice(
    '--output',
    stringFlag(values, 'output'),
    ['text', 'json'] as const,
    'text',
  );
  return {
    values,
    positionals: parsed.positionals,
    target: controlTarget(
      {
        control: stringFlag(values, 'control'),
        'control-host': stringFlag(values, 'control-host'),
        'control-port': stringFlag(values, 'control-port'),
        'control-token': stringFlag(values, 'control-token'),
      },
      env,
    ),
    output,
  };
}

/** A string flag's value. */
export function stringFlag(values: ClientValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The error line of a refusal (`{"error": …}`), or the status and body. */
function refusal(answer: ControlAnswer): string {
  if (isObject(answer.body) && typeof answer.body.error === 'string') return answer.body.error;
  return `answered ${answer.status}: ${JSON.stringify(answer.body)}`;
}

/**
 * Sends one request and prints its answer by the convention above; `text` turns a success
 * into one line.
 */
export function runRequest(
  target: ControlTarget,
  output: 'text' | 'json',
  request: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown },
  text: (body: unknown) => string,
): Promise<number> {
  return reportControlErrors(async () => {
    const answer = await callControl(target, request.method, request.path, request.body);
    if (answer.status === 401) {
      throw controlApiError(
        `mock-istiod at ${target.address} wants a token: --control-token or MOCK_ISTIOD_CONTROL_TOKEN`,
      );
    }
    if (answer.status >= 500) {
      throw controlApiError(`mock-istiod at ${target.address} failed: ${refusal(answer)}`);
    }
    if (answer.status >= 400) {
      if (output === 'json') process.stdout.write(`${JSON.stringify(answer.body)}\n`);
      process.stderr.write(`mock-istiod: ${refusal(answer)}\n`);
      return 2;
    }
    process.stdout.write(
      output === 'json' ? `${JSON.stringify(answer.body)}\n` : `${text(answer.body)}\n`,
    );
    return 0;
  });
}
