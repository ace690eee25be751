/**
 * The CLI verbs of the control operations, derived from the table (src/api/table.ts): every
 * operation that declares a `cli` becomes a command (`mock-istiod push`), or a subcommand
 * when its verb has two words (`mock-istiod resources get`). Its flags are its input fields
 * (`--node`, `--types`), read from text and checked here with the operation's own fields
 * before anything is sent; a `file` field is read from a resource file (`-f`).
 * control-command.ts has the flags, output and exit codes they share.
 */
import type { ParseArgsConfig } from 'node:util';
import { validateFields, type FieldSchema } from '../../core/fields.js';
import type { Operation } from '../../api/operation.js';
import { OPERATIONS, type OperationName } from '../../api/table.js';
import { loadResourceFiles } from '../../resources/files.js';
import { DEFAULT_SET, type ResourceSetSpec } from '../../snapshot/validated-set.js';
import { MockIstiodError } from '../../util/errors.js';
import { formatProblems } from '../../util/problems.js';
import type { Command } from '../command.js';
import {
  CLIENT_HELP,
  parseClientArgs,
  runOperation,
  stringFlag,
  type ClientValues,
} from './control-command.js';

type Options = NonNullable<ParseArgsConfig['options']>;

function flagName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function fieldHelp(name: string, field: FieldSchema): string {
  return `  --${`${flagName(name)} <${field.type}>`.padEnd(23)} ${field.description}`;
}

/** The fields a verb takes as flags: those text can say (not JSON values, not its file's). */
function flagFields(op: Operation): [string, FieldSchema][] {
  return Object.entries(op.input).filter(
    ([name, field]) => field.type !== 'json' && name !== op.cli?.file?.field,
  );
}

/** A resource file as the body of `PUT /control/resources`: the default set alone, or every set. */
function readResourceFile(path: string): Record<string, unknown> {
  const loaded = loadResourceFiles(path === '-' ? '/dev/stdin' : path);
  const problems = loaded.ok ? loaded.value.problems : loaded.problems;
  if (!loaded.ok || problems.length > 0) {
    const message = `cannot read ${path}: ${formatProblems(problems)}`;
    throw new MockIstiodError('INVALID_RESOURCES', message, { problems });
  }
  const sets = loaded.value.sets;
  const only = sets[0];
  // The file's pinned versions go with its resources (docs/resources.md, "Pinned versions").
  const pins = (set: ResourceSetSpec) => ({
    ...(set.versions ? { versions: set.versions } : {}),
    ...(set.resourceVersions ? { resourceVersions: set.resourceVersions } : {}),
  });
  if (sets.length === 1 && only?.name === DEFAULT_SET && !only.match)
    return { resources: only.resources, ...pins(only) };
  return {
    sets: sets.map((set) => ({
      name: set.name,
      ...(set.match ? { match: set.match } : {}),
      resources: set.resources,
      ...pins(set),
    })),
  };
}

/** The operation's input from the flags, checked by its fields, every problem named by its flag. */
function inputOf(op: Operation, values: ClientValues): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const [name] of flagFields(op)) {
    const value = stringFlag(values, flagName(name));
    if (value !== undefined) given[name] = value;
  }
  const checked = validateFields(Object.fromEntries(flagFields(op)), given, { fromText: true });
  if (!checked.ok) {
    const lines = checked.problems.map(
      (p) => `--${flagName(p.path.split(/[.[]/)[0] ?? p.path)}: ${p.message}`,
    );
    throw new MockIstiodError('USAGE', lines.join('; '));
  }
  const file = op.cli?.file;
  if (!file) return { ...checked.value };
  const path = stringFlag(values, 'file');
  if (path === undefined) throw new MockIstiodError('USAGE', `-f, --file: required: ${file.help}`);
  return { ...checked.value, ...readResourceFile(path) };
}

function verbCommand(op: Operation, words: readonly string[]): Command {
  const cli = op.cli;
  if (!cli) throw new Error(`${op.name} has no CLI verb`);
  const flags: Options = Object.fromEntries(
    flagFields(op).map(([name]) => [flagName(name), { type: 'string' } as const]),
  );
  if (cli.file) flags.file = { type: 'string', short: 'f' };
  const flagsHelp = [
    ...(cli.file ? [`  -f, --file <path>        ${cli.file.help}`] : []),
    ...flagFields(op).map(([name, field]) => fieldHelp(name, field)),
  ];
  const usage = `Usage: mock-istiod ${words.join(' ')} [options]

${cli.help}

It calls ${op.method} ${op.path}. Options (environment variable in brackets):
${flagsHelp.map((line) => `${line}\n`).join('')}${CLIENT_HELP}
`;
  return {
    summary: cli.summary,
    run: (argv, env) => {
      const args = parseClientArgs(argv, flags, usage, env);
      if (!args) return Promise.resolve(0);
      if (args.positionals.length > 0) {
        throw new MockIstiodError(
          'USAGE',
          `${words.join(' ')} takes no arguments, got "${args.positionals.join(' ')}"`,
        );
      }
      return runOperation(
        args.target,
        args.output,
        op.name as OperationName,
        inputOf(op, args.values),
        (answer) => cli.text(answer as never),
        (answer) => cli.fails?.(answer as never) === true,
      );
    },
  };
}

/** A command of subcommands (`resources get|set`). */
function groupCommand(name: string, verbs: Record<string, Command>): Command {
  const names = Object.keys(verbs);
  const usage = `Usage: mock-istiod ${name} ${names.join('|')} [options]

${names.map((verb) => `  ${verb.padEnd(6)} ${verbs[verb]?.summary ?? ''}`).join('\n')}

See: mock-istiod ${name} <${names.join('|')}> --help
`;
  return {
    summary: `${names.join('|')}: ${Object.values(verbs)
      .map((v) => v.summary)
      .join('; ')}`,
    run: (argv, env) => {
      const [verb, ...rest] = argv;
      if (verb === undefined || verb === '--help' || verb === '-h') {
        process.stdout.write(usage);
        return Promise.resolve(verb === undefined ? 2 : 0);
      }
      const command = Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
      if (!command) {
        throw new MockIstiodError(
          'USAGE',
          `${name}: unknown subcommand "${verb}"; expected ${names.join(' or ')}`,
        );
      }
      return command.run(rest, env);
    },
  };
}

function controlVerbs(): Record<string, Command> {
  const commands: Record<string, Command> = {};
  const groups: Record<string, Record<string, Command>> = {};
  for (const op of OPERATIONS as readonly Operation[]) {
    if (!op.cli) continue;
    const words = op.cli.verb ?? [op.name];
    const [first = op.name, second] = words;
    if (second === undefined) commands[first] = verbCommand(op, words);
    else (groups[first] ??= {})[second] = verbCommand(op, words);
  }
  for (const [name, verbs] of Object.entries(groups)) commands[name] = groupCommand(name, verbs);
  return commands;
}

export const CONTROL_VERBS: Record<string, Command> = controlVerbs();
