#!/usr/bin/env node
/**
 * The `mock-istiod` command. User mistakes print one line and exit 2; nothing a user does
 * wrong prints a stack trace.
 */
import { MockIstiodError } from '../server/errors.js';
import { UsageError } from './args.js';
import { serve } from './serve.js';

const USAGE = `Usage: mock-istiod <command> [options]

Commands:
  serve     serve xDS like istiod, with the sidecar lab's resources (see: mock-istiod serve --help)
`;

function isUserError(err: unknown): err is Error {
  if (err instanceof UsageError || err instanceof MockIstiodError) return true;
  // node:util parseArgs reports unknown or malformed flags with these codes.
  const code = (err as { code?: string }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest, process.env);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${command}"; try: mock-istiod --help`);
  }
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
