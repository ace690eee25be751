/**
 * `mock-istiod journal [--follow]`: the journal of a running mock (`GET /debug/journal`),
 * one line per entry, or with `-o json` one JSON object per line. With `--follow` it keeps
 * asking for entries after the last one seen until interrupted (Ctrl-C ends it with 0).
 */
import { MockIstiodError } from '../util/errors.js';
import type { JournalEntry } from '../journal/journal.js';
import { CLIENT_HELP, parseClientArgs, stringFlag, type ClientArgs } from './control-command.js';
import { callControl, controlApiError, reportControlErrors } from './control-client.js';

const USAGE = `Usage: mock-istiod journal [--follow] [options]

Prints what a running mock journaled: streams opened and closed, requests, responses, ACKs
and NACKs, oldest first. With -o json, one JSON object per line (the API's entries).

Options (environment variable in brackets):
  -f, --follow             keep printing new entries until interrupted
  --node <text>            only entries whose node id contains it
  --type <LDS>             only entries of this type
  --kind <ack,nack>        only these kinds
  --limit <n>              only the newest n entries (before following)
${CLIENT_HELP}
`;

const FLAGS = {
  follow: { type: 'boolean', short: 'f', default: false },
  node: { type: 'string' },
  type: { type: 'string' },
  kind: { type: 'string' },
  limit: { type: 'string' },
} as const;

/** How often `--follow` asks for new entries. */
const FOLLOW_INTERVAL_MS = 250;

export function journalLine(e: JournalEntry): string {
  const what = [e.kind, e.typeUrl?.split('.').pop(), e.version && `v=${e.version}`]
    .filter(Boolean)
    .join(' ');
  const detail = e.errorDetail?.message ?? e.reason ?? '';
  return `${e.seq} ${e.time} ${e.nodeId ?? e.peer ?? '-'} ${what}${detail ? `: ${detail}` : ''}`;
}

async function fetchEntries(args: ClientArgs, since: number | undefined): Promise<JournalEntry[]> {
  const query = new URLSearchParams();
  for (const key of ['node', 'type', 'kind', 'limit']) {
    const value = stringFlag(args.values, key);
    if (value !== undefined && !(key === 'limit' && since !== undefined)) query.set(key, value);
  }
  if (since !== undefined) query.set('since', String(since));
  const answer = await callControl(args.target, 'GET', `/debug/journal?${query.toString()}`);
  if (answer.status === 400) {
    const error = (answer.body as { error?: string }).error ?? 'bad journal query';
    throw new MockIstiodError('USAGE', error);
  }
  if (answer.status !== 200 || !Array.isArray(answer.body)) {
    throw controlApiError(
      `mock-istiod at ${args.target.address} answered ${answer.status} to /debug/journal: ${JSON.stringify(answer.body)}`,
    );
  }
  return answer.body as JournalEntry[];
}

export async function journal(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseClientArgs(argv, FLAGS, USAGE, env);
  if (!args) return 0;
  if (args.positionals.length > 0) throw new MockIstiodError('USAGE', 'journal takes no arguments');
  const print = (entries: JournalEntry[]) => {
    for (const e of entries) {
      process.stdout.write(`${args.output === 'json' ? JSON.stringify(e) : journalLine(e)}\n`);
    }
  };
  return reportControlErrors(async () => {
    const first = await fetchEntries(args, undefined);
    print(first);
    if (args.values.follow !== true) return 0;
    let since = first.at(-1)?.seq ?? 0;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      while (!stop.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
        if (stop.signal.aborted) break;
        const entries = await fetchEntries(args, since);
        print(entries);
        since = entries.at(-1)?.seq ?? since;
      }
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    }
    return 0;
  });
}
