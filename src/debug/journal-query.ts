/**
 * `GET /debug/journal` query parameters → a journal filter, checked once with every problem
 * named by its parameter: `node` (substring of the node id), `type` (`cds`, `LDS`, a type
 * URL), `kind` (comma-separated: `ack,nack`), `since` (entries after this sequence number)
 * and `limit` (the newest N).
 */
import type { JournalFilter, JournalKind } from '../journal/journal.js';
import type { Problem, Result } from '../util/problems.js';
import { parseTypeName, TYPE_NAME_HINT } from '../core/types/registry.js';

export const JOURNAL_KINDS = [
  'open',
  'close',
  'rejected',
  'response',
  'subscribe',
  'reconnect',
  'resubscribe',
  'unsubscribe',
  'ack',
  'repeat',
  'nack',
  'stale',
] as const satisfies readonly JournalKind[];

// Fails to compile when the journal learns a kind this list does not name.
type Unlisted = Exclude<JournalKind, (typeof JOURNAL_KINDS)[number]>;
const everyKindListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyKindListed;

function integer(
  params: URLSearchParams,
  name: string,
  min: number,
  problems: Problem[],
): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    problems.push({ path: name, message: `expected an integer >= ${min}, got "${raw}"` });
    return undefined;
  }
  return Number(raw);
}

function kinds(params: URLSearchParams, problems: Problem[]): JournalKind[] | undefined {
  const raw = params.getAll('kind').flatMap((value) => value.split(','));
  const wanted = raw.map((k) => k.trim().toLowerCase()).filter((k) => k !== '');
  if (wanted.length === 0) return undefined;
  const known = JOURNAL_KINDS as readonly string[];
  const unknown = wanted.filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    problems.push({
      path: 'kind',
      message: `unknown kind ${unknown.map((k) => `"${k}"`).join(', ')}; expected any of ${JOURNAL_KINDS.join(', ')}`,
    });
    return undefined;
  }
  return wanted as JournalKind[];
}

export function parseJournalQuery(params: URLSearchParams): Result<JournalFilter> {
  const problems: Problem[] = [];
  const filter: JournalFilter = {};
  const node = params.get('node') ?? params.get('proxyID');
  if (node) filter.node = node;
  const type = params.get('type');
  if (type) {
    const typeUrl = parseTypeName(type);
    if (typeUrl) filter.typeUrl = typeUrl;
    else problems.push({ path: 'type', message: `expected ${TYPE_NAME_HINT}, found "${type}"` });
  }
  const kind = kinds(params, problems);
  if (kind) filter.kind = kind;
  const since = integer(params, 'since', 0, problems);
  if (since !== undefined) filter.since = since;
  const limit = integer(params, 'limit', 1, problems);
  if (limit !== undefined) filter.limit = limit;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: filter };
}
