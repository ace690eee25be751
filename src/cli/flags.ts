/**
 * Reading a command's flags: strict (an unknown or malformed flag is a usage error, reported
 * in one line by main.ts), no positional arguments unless the command takes some, and
 * `-h/--help` printing the usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Config<T extends Options> = {
  args: string[];
  options: T;
  strict: true;
  allowPositionals: false;
};
export type FlagValues<T extends Options> = ReturnType<typeof parseArgs<Config<T>>>['values'];

/** The flags' values, or undefined when `--help` was asked for (the usage is then printed). */
export function parseFlags<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
): FlagValues<T> | undefined {
  const config: Config<T> = { args: argv, options, strict: true, allowPositionals: false };
  const { values } = parseArgs(config);
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return undefined;
  }
  return values;
}

type WithPositionals<T extends Options> = Omit<Config<T>, 'allowPositionals'> & {
  allowPositionals: true;
};

/** As `parseFlags`, for a command that also takes arguments: its flags and its arguments. */
export function parseFlagsAndArgs<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
):
  | { values: ReturnType<typeof parseArgs<WithPositionals<T>>>['values']; positionals: string[] }
  | undefined {
  const config: WithPositionals<T> = { args: argv, options, strict: true, allowPositionals: true };
  const { values, positionals } = parseArgs(config);
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return undefined;
  }
  return { values, positionals };
}
