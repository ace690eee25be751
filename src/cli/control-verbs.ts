/**
 * The runtime actions as commands against a running mock, one POST each: `release`,
 * `withhold`, `down`, `up`, `reset`, `push` and `disconnect` (docs/api.md has the endpoints
 * they call; control-command.ts the flags, output and exit codes they share).
 */
import type { ParseArgsConfig } from 'node:util';
import { isObject } from '../util/guards.js';
import {
  CLIENT_HELP,
  parseClientArgs,
  runRequest,
  stringFlag,
  type ClientValues,
} from './control-command.js';
import { MockIstiodError } from '../util/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Answer = Record<string, unknown>;
/** commands.ts's Command (not imported: commands.ts lists these). */
interface Command {
  summary: string;
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<number>;
}

interface Verb {
  summary: string;
  /** What the command does, for its --help. */
  help: string;
  flags?: Options;
  flagsHelp?: string;
  body?(values: ClientValues): Record<string, unknown> | undefined;
  text(answer: Answer): string;
}

const SELECTOR_FLAGS = { node: { type: 'string' } } as const;
const NODE_HELP = `  --node <glob>            only the streams whose node id matches, e.g. "sidecar~*~orders-*"`;

function selector(values: ClientValues, keys: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of keys) {
    const value = stringFlag(values, key);
    if (value === undefined) continue;
    body[key] =
      key === 'types'
        ? value.split(/[+,]/)
        : /^\d+$/.test(value) && key === 'code'
          ? Number(value)
          : value;
  }
  return body;
}

const VERBS: Record<string, Verb> = {
  release: {
    summary: 'let withheld responses go (a running mock)',
    help: 'Lets held responses go: ends withhold and partial faults and --withhold-first.',
    text: (a) => (a.released === true ? 'released' : 'nothing was withheld'),
  },
  withhold: {
    summary: 'hold every response until release (a running mock)',
    help: 'Holds every response until `mock-istiod release`.',
    text: () => 'withholding every response',
  },
  down: {
    summary: 'close the xDS port, as when istiod goes away (a running mock)',
    help: 'Closes the xDS port: open streams end with UNAVAILABLE, new ones are refused.',
    text: () => 'xDS port closed',
  },
  up: {
    summary: 'open the xDS port again (a running mock)',
    help: 'Opens the xDS port again on the same address.',
    text: () => 'xDS port open',
  },
  reset: {
    summary: 'per-test cleanup of a running mock',
    help: 'No faults, nothing held, the port up, the start-up resources, an empty journal.',
    text: (a) => `reset: removed ${String(a.removedFaults)} fault(s)`,
  },
  push: {
    summary: 'send the current version again (a running mock)',
    help: 'Sends the current version of the chosen types again to the chosen streams.',
    flags: { ...SELECTOR_FLAGS, types: { type: 'string' } },
    flagsHelp: `${NODE_HELP}\n  --types <LDS,CDS>        only these types (default: every type)`,
    body: (values) => selector(values, ['node', 'types']),
    text: (a) => `pushed to ${String(a.streams)} stream(s)`,
  },
  disconnect: {
    summary: 'end streams with a gRPC status (a running mock)',
    help: 'Ends the chosen streams with a gRPC status; Envoy reconnects after its back-off.',
    flags: { ...SELECTOR_FLAGS, code: { type: 'string' }, message: { type: 'string' } },
    flagsHelp: `${NODE_HELP}\n  --code <status>          gRPC status name or number (default UNAVAILABLE)\n  --message <text>         the status message`,
    body: (values) => selector(values, ['node', 'code', 'message']),
    text: (a) => `disconnected ${String(a.disconnected)} stream(s) with ${String(a.code)}`,
  },
};

function verbCommand(name: string, verb: Verb): Command {
  const usage = `Usage: mock-istiod ${name} [options]

${verb.help}

Options (environment variable in brackets):
${verb.flagsHelp ? `${verb.flagsHelp}\n` : ''}${CLIENT_HELP}
`;
  return {
    summary: verb.summary,
    run: (argv, env) => {
      const args = parseClientArgs(argv, verb.flags ?? {}, usage, env);
      if (!args) return Promise.resolve(0);
      if (args.positionals.length > 0) {
        throw new MockIstiodError(
          'USAGE',
          `${name} takes no arguments, got "${args.positionals.join(' ')}"`,
        );
      }
      const body = verb.body?.(args.values);
      return runRequest(
        args.target,
        args.output,
        { method: 'POST', path: `/control/${name}`, body },
        (answer) => verb.text(isObject(answer) ? answer : {}),
      );
    },
  };
}

export const CONTROL_VERBS: Record<string, Command> = Object.fromEntries(
  Object.entries(VERBS).map(([name, verb]) => [name, verbCommand(name, verb)]),
);
