/**
 * Reading a command's flags, the one way every command does it: strict (an unknown or
 * malformed flag is a usage error, reported in one line by main.ts), no positional arguments
 * unless the command takes some, and `-h/--help` printing the usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Config<T extends Options, P extends boolean> = {
  args: string[];
  options: T;
  strict: true;
  allowPositionals: P;
};
type Parsed<T extends Options, P extends boolean> = ReturnType<typeof parseArgs<Config<T, P>>>;
export type FlagValues<T extends Options> = Parsed<T, false>['values'];

/** The flags' values, or undefined when `--help` was asked for (the usage is then printed). */
export function parseFlags<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
): FlagValues<T> | undefined;
/** For a command that also takes arguments: its flags and its arguments. */
export function parseFlags<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
  take: { positionals: true },
): { values: Parsed<T, true>['values']; positionals: string[] } | undefined;
export function parseFlags<T extends Options>(
  argv: string[],
  options: T,
  usage: string,
  take?: { positionals: true },
): FlagValues<T> | { values: Parsed<T, true>['values']; positionals: string[] } | undefined {
  const allowPositionals = take?.positionals === true;
  const { values, positionals } = parseArgs({
    args: argv,
    options,
    strict: true,
    allowPositionals,
  });
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return undefined;
  }
  return take ? { values, positionals } : values;
}
