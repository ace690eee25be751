/**
 * `mock-istiod fault add|ls|rm` against a running mock: apply a fault (the same spec as
 * `serve --fault`: JSON, or scenario[:key=value,…]), list the faults with their state and
 * counts, remove one or all. Flags, output and exit codes: control-command.ts.
 */
import { parseFaultFlag } from '../../faults/flag-spec.js';
import { MockIstiodError } from '../../util/errors.js';
import { isObject } from '../../util/guards.js';
import { formatProblems } from '../../util/problems.js';
import { CLIENT_HELP, parseClientArgs, runOperation, stringFlag } from './control-command.js';
import { formatTable } from './tabwriter.js';

const USAGE = `Usage: mock-istiod fault add <spec> [--id <id>] [options]
       mock-istiod fault ls [options]
       mock-istiod fault rm <id>|--all [options]

Applies, lists and removes faults on a running mock. <spec> is what serve --fault takes:
JSON, or scenario[:key=value,…], e.g. delay:ms=2s,jitter=500ms or withhold:types=LDS
(see docs/faults.md).

Options (environment variable in brackets):
  --id <id>                fault add: the fault's id (default: one is made up)
  --all                    fault rm: remove every fault
${CLIENT_HELP}
`;

const FLAGS = { id: { type: 'string' }, all: { type: 'boolean', default: false } } as const;

interface FaultLine {
  id?: string;
  scenario?: string;
  state?: string;
  scope?: { node?: string; types?: string[] };
  counts?: Record<string, number>;
}

function faultOf(answer: unknown, key: 'fault' | 'removed'): FaultLine {
  return isObject(answer) && isObject(answer[key]) ? answer[key] : {};
}

function faultTable(answer: unknown): string {
  const faults =
    isObject(answer) && Array.isArray(answer.faults) ? (answer.faults as FaultLine[]) : [];
  if (faults.length === 0) return 'no faults';
  const rows = faults.map((f) => [
    f.id ?? '',
    f.scenario ?? '',
    f.state ?? '',
    [f.scope?.node, f.scope?.types?.join(',')].filter(Boolean).join(' ') || '*',
    Object.entries(f.counts ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
  ]);
  return formatTable([['ID', 'SCENARIO', 'STATE', 'SCOPE', 'COUNTS'], ...rows], 3).trimEnd();
}

export async function fault(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseClientArgs(argv, FLAGS, USAGE, env);
  if (!args) return 0;
  const [action, ...rest] = args.positionals;
  const { target, output, values } = args;
  if (action === 'add' && rest.length === 1) {
    const spec = parseFaultFlag(rest[0] ?? '');
    if (!spec.ok) throw new MockIstiodError('USAGE', `fault add: ${formatProblems(spec.problems)}`);
    const id = stringFlag(values, 'id');
    const body = id === undefined ? spec.value : { ...spec.value, id };
    return runOperation(target, output, 'applyFault', body, (a) => {
      const f = faultOf(a, 'fault');
      return `fault ${f.id ?? '?'} (${f.scenario ?? '?'}) ${f.state ?? ''}`;
    });
  }
  if (action === 'ls' && rest.length === 0) {
    return runOperation(target, output, 'listFaults', {}, faultTable);
  }
  if (action === 'rm' && (rest.length === 1) !== (values.all === true)) {
    const id = rest[0];
    if (id === undefined) {
      return runOperation(
        target,
        output,
        'clearFaults',
        {},
        (a) => `removed ${a.removed.length} fault(s)`,
      );
    }
    return runOperation(target, output, 'removeFault', { id }, () => 'removed 1 fault(s)');
  }
  throw new MockIstiodError(
    'USAGE',
    'expected: fault add <spec>, fault ls, or fault rm <id>|--all',
  );
}
