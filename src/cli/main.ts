#!/usr/bin/env node
/**
 * The `mock-istiod` command. User mistakes print one line and exit 2; nothing a user does
 * wrong prints a stack trace.
 */
import { isMockIstiodError, MockIstiodError, type MockIstiodErrorCode } from '../util/errors.js';
import { COMMANDS } from './commands.js';
import { versionLine } from './version.js';

/**
 * The codes of mistakes a user can fix (a flag, an option, a resource or fault file, a port in
 * use); other codes mean a bug or the world failing, and keep their stack trace.
 */
const USER_MISTAKES: ReadonlySet<MockIstiodErrorCode> = new Set([
  'USAGE',
  'INVALID_OPTIONS',
  'INVALID_RESOURCES',
  'LISTEN_FAILED',
  // Missing Istio binaries: the message names the fix (npm run install-istio).
  'ISTIO_NOT_FOUND',
] as const);

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
  );
  return [
    'Usage: mock-istiod <command> [options]',
    '       mock-istiod --version',
    '',
    'Commands:',
    ...lines,
    '',
    'See: mock-istiod <command> --help',
    '',
  ].join('\n');
}

function isUserError(err: unknown): err is Error {
  if (isMockIstiodError(err)) return USER_MISTAKES.has(err.code);
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
  if (name === '--version' || name === '-V') {
    process.stdout.write(versionLine());
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new MockIstiodError('USAGE', `unknown command "${name}"`);
  return command.run(rest, process.env);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (isUserError(err)) {
      const hint =
        isMockIstiodError(err) && err.code !== 'USAGE' ? '' : ' (see: mock-istiod --help)';
      process.stderr.write(`mock-istiod: ${err.message}${hint}\n`);
      process.exit(2);
    }
    process.stderr.write(`mock-istiod: unexpected error\n`);
    console.error(err);
    process.exit(1);
  },
);
