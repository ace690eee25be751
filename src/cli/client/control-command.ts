/**
 * What every command that drives a running mock shares: its flags (`--control`, the token,
 * `-o text|json`), one request, and one convention for answers and exit codes:
 *
 *   0  done; the answer is printed (one line of text, or with `-o json` the API's JSON)
 *   1  the mock could not be asked: not reachable, a token refused, or a server error
 *   2  a usage mistake, or the mock refused the request (400/404/409): the reason is printed
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { OutputOf } from '../../api/operation.js';
import type { OperationName, OperationNamed } from '../../api/table.js';
import { isMockIstiodError } from '../../util/errors.js';
import { parseChoice } from '../args.js';
import {
  clientFor,
  CONTROL_FLAGS,
  CONTROL_HELP,
  controlTarget,
  reportControlErrors,
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

/**
 * Runs one operation and prints its answer by the convention above; `text` turns a success
 * into one line.
 */
export function runOperation<N extends OperationName>(
  target: ControlTarget,
  output: 'text' | 'json',
  name: N,
  input: Record<string, unknown>,
  text: (answer: OutputOf<OperationNamed<N>>) => string,
  fails: (answer: OutputOf<OperationNamed<N>>) => boolean = () => false,
): Promise<number> {
  return reportControlErrors(target, async () => {
    let answer: OutputOf<OperationNamed<N>>;
    try {
      answer = await (
        clientFor(target).call as (n: N, i: unknown) => Promise<OutputOf<OperationNamed<N>>>
      )(name, input);
    } catch (err) {
      // A refusal, or a wait that ran out (408): the command's own answer, exit 2.
      const body = isMockIstiodError(err, 'WAIT_TIMEOUT')
        ? err.details.lastValue
        : isMockIstiodError(err, 'CONTROL_REFUSED') && err.details.status !== 401
          ? err.details.body
          : undefined;
      if (body === undefined || !(err instanceof Error)) throw err;
      if (output === 'json') process.stdout.write(`${JSON.stringify(body)}\n`);
      process.stderr.write(`mock-istiod: ${err.message}\n`);
      return 2;
    }
    const line = output === 'json' ? JSON.stringify(answer) : text(answer);
    process.stdout.write(`${line}\n`);
    return fails(answer) ? 1 : 0;
  });
}
