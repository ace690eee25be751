/**
 * `mock-istiod journal [--follow]`: the journal of a running mock (`GET /debug/journal`),
 * one line per entry, or with `-o json` one JSON object per line. With `--follow` it keeps
 * asking for entries after the last one seen until interrupted (Ctrl-C ends it with 0).
 * With `--file` it reads a journal file `serve --journal` wrote instead, saying on stderr
 * when its last line was cut short (the writer was killed) and skipping it.
 */
import { isMockIstiodError, MockIstiodError } from '../../util/errors.js';
import { filterEntries } from '../../journal/journal.js';
import { readJournalFile } from '../../journal/read-file.js';
import type { JournalEntry } from '../../journal/journal.js';
import { CLIENT_HELP, parseClientArgs, stringFlag, type ClientArgs } from './control-command.js';
import { clientFor, reportControlErrors } from './control-client.js';
import { validateFields } from '../../core/fields.js';
import { journal as journalOperation, journalFilter } from '../../api/ops/journal.js';

const USAGE = `Usage: mock-istiod journal [--follow | --file <file>] [options]

Prints what a running mock journaled: streams opened and closed, requests, responses, ACKs
and NACKs, oldest first. With -o json, one JSON object per line (the API's entries).

Options (environment variable in brackets):
  -f, --follow             keep printing new entries until interrupted
  --file <file>            read a file written by serve --journal instead of asking a mock
                           (a last line cut short, by a kill, is skipped and reported)
  --node <glob>            only entries whose node id matches (*orders*; without * or ?,
                           the exact id), as every node filter
  --type <LDS>             only entries of this type
  --kind <ack,nack>        only these kinds
  --limit <n>              only the newest n entries (before following)
${CLIENT_HELP}
`;

const FLAGS = {
  follow: { type: 'boolean', short: 'f', default: false },
  file: { type: 'string' },
  node: { type: 'string' },
  type: { type: 'string' },
  kind: { type: 'string' },
  limit: { type: 'string' },
} as const;

/** How long each of `--follow`'s long polls waits for a new entry (`?wait=`). */
const FOLLOW_WAIT_MS = 25_000;

export function journalLine(e: JournalEntry): string {
  const what = [e.kind, e.typeUrl?.split('.').pop(), e.version && `v=${e.version}`]
    .filter(Boolean)
    .join(' ');
  const detail = e.errorDetail?.message ?? e.reason ?? '';
  return `${e.seq} ${e.time} ${e.nodeId ?? e.peer ?? '-'} ${what}${detail ? `: ${detail}` : ''}`;
}

/** The journal operation's input from the flags, checked with its fields (`--kind: …`). */
function queryOf(args: ClientArgs) {
  const given: Record<string, string> = {};
  for (const key of ['node', 'type', 'kind', 'limit']) {
    const value = stringFlag(args.values, key);
    if (value !== undefined) given[key] = value;
  }
  const checked = validateFields(journalOperation.input, given, { fromText: true });
  if (!checked.ok) {
    const list = checked.problems.map((p) => `--${p.path}: ${p.message}`).join('; ');
    throw new MockIstiodError('USAGE', list);
  }
  return checked.value;
}

async function fetchEntries(args: ClientArgs, since: number | undefined): Promise<JournalEntry[]> {
  const { limit, ...query } = queryOf(args);
  const input =
    since === undefined ? { ...query, limit } : { ...query, since, wait: FOLLOW_WAIT_MS };
  return clientFor(args.target).call('journal', input);
}

/** The entries of a journal file, filtered by the same flags as the API's. */
function fromFile(path: string, args: ClientArgs): JournalEntry[] {
  const filter = { value: journalFilter(queryOf(args)) };
  let contents;
  try {
    contents = readJournalFile(path);
  } catch (err) {
    if (isMockIstiodError(err, 'JOURNAL_FILE_FAILED'))
      throw new MockIstiodError('USAGE', `--file: ${err.message}`);
    throw err;
  }
  if (contents.partial) {
    const { line, bytes } = contents.partial;
    process.stderr.write(
      `journal: ${path}:${line}: the last line is cut short (${bytes} bytes, no newline; the writer stopped mid-line): skipped\n`,
    );
  }
  return filterEntries(contents.entries, filter.value);
}

export async function journal(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseClientArgs(argv, FLAGS, USAGE, env);
  if (!args) return 0;
  if (args.positionals.length > 0) throw new MockIstiodError('USAGE', 'journal takes no arguments');
  // Resolves once the text is handed to the OS: the command ends with process.exit, which
  // would cut a long output short on a pipe.
  const print = (entries: JournalEntry[]) => {
    const text = entries
      .map((e) => `${args.output === 'json' ? JSON.stringify(e) : journalLine(e)}\n`)
      .join('');
    return new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  };
  const file = stringFlag(args.values, 'file');
  if (file !== undefined) {
    if (args.values.follow === true)
      throw new MockIstiodError('USAGE', '--file and --follow: choose one');
    await print(fromFile(file, args));
    return 0;
  }
  queryOf(args);
  return reportControlErrors(args.target, async () => {
    if (args.values.follow !== true) {
      await print(await fetchEntries(args, undefined));
      return 0;
    }
    // Following, SIGINT ends the command with 0 from the start: a signal that came while the
    // first entries were fetched or printed would otherwise kill it.
    let stopped = false;
    let onSignal = () => undefined as void;
    const stop = new Promise<undefined>((resolve) => {
      onSignal = () => {
        stopped = true;
        resolve(undefined);
      };
    });
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      const first = await Promise.race([fetchEntries(args, undefined), stop]);
      if (first === undefined) return 0;
      await print(first);
      let since = first.at(-1)?.seq ?? 0;
      while (!stopped) {
        // Each request waits on the mock until an entry comes (or 25 s pass: then []).
        const entries = await Promise.race([fetchEntries(args, since), stop]);
        if (entries === undefined) break;
        await print(entries);
        since = entries.at(-1)?.seq ?? since;
      }
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    }
    return 0;
  });
}
