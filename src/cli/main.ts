#!/usr/bin/env node
/**
 * The `mock-istiod` command. User mistakes print one line and exit 2; nothing a user does
 * wrong prints a stack trace.
 */
import { MockIstiodError } from '../core/errors.js';
import { UsageError } from './args.js';
import { COMMANDS } from './commands.js';

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
  );
  return `Usage: mock-istiod <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nSee: mock-istiod <command> --help\n`;
}

function isUserError(err: unknown): err is Error {
  if (err instanceof UsageError || err instanceof MockIstiodError) return true;
  // node:util parseArgs reports unknown or malformed flags with these codes.
  const code = (err as { code?: string }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command "${name}"`);
  return command.run(rest, process.env);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (isUserError(err)) {
      const hint = err instanceof MockIstiodError ? '' : ' (see: mock-istiod --help)';
      process.stderr.write(`mock-istiod: ${err.message}${hint}\n`);
      process.exit(2);
    }
    process.stderr.write(`mock-istiod: unexpected error\n`);
    console.error(err);
    process.exit(1);
  },
);
