/**
 * `mock-istiod explain`: maps each injection value (capture ports, UID, mode, excluded ports)
 * to the Envoy object it becomes in real Envoys' config_dumps, one or several (each from a
 * file or a running Envoy's admin port), and says where they differ and why.
 */
import { readFileSync } from 'node:fs';
import { readDumpFacts } from '../../explain/dump-facts.js';
import { compare, explainDump, formatExplained, type Explained } from '../../explain/explain.js';
import {
  SEED_SOURCE,
  sourceFromInjection,
  sourceFromLabInjection,
  type ValuesSource,
} from '../../target/injection-source.js';
import { isMockIstiodError, MockIstiodError } from '../../util/errors.js';
import { fail } from '../fail.js';
import { parseFlags } from '../flags.js';

export const EXPLAIN_USAGE = `Usage: mock-istiod explain (-f [<label>=]<config_dump.json> | --admin [<label>=]<host:port>)...
         [--inject <injected.yaml> | --from-inject] [--json]

Shows what each interception value of sidecar injection (istio-init -p 15001, -z 15006,
-u 1337, -m REDIRECT, -d 15090,15021,15020) becomes in a real Envoy's config_dump: the
listener or cluster, or no Envoy object at all. With two configurations (e.g. the lab's and
istiod's own, docs/generate.md), also where they differ and why.

The values are the seed's table (a default install) unless --inject names real
istioctl kube-inject output (the injected YAML, or \`mock-istiod inject --json\`'s body), or
--from-inject runs \`mock-istiod inject\` on the lab's Deployment; the output's first line
says which.

Options:
  -f, --file [<label>=]<file>     a saved config_dump (curl <admin>/config_dump) (repeatable)
  --admin [<label>=]<host:port>   a running Envoy's admin address (repeatable)
  --inject <file>                 take the values from this injection output
  --from-inject                   take them from istioctl kube-inject of the lab's Deployment
  --json                          print the rows as JSON
  -h, --help                      show this help
`;

const OPTIONS = {
  file: { type: 'string', short: 'f', multiple: true },
  admin: { type: 'string', multiple: true },
  inject: { type: 'string' },
  'from-inject': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function labelled(text: string): [string, string] {
  const m = /^([A-Za-z][\w-]*)=(.+)$/.exec(text);
  return m ? [m[1] ?? text, m[2] ?? text] : [text, text];
}

async function fromAdmin(text: string): Promise<[string, unknown]> {
  const [label, address] = labelled(text);
  if (!/^[^\s/]+:\d{1,5}$/.test(address))
    throw new MockIstiodError('USAGE', `--admin: expected host:port, got "${address}"`);
  const url = `http://${address}/config_dump`;
  const res = await fetch(url).catch((err: unknown) => {
    throw new MockIstiodError('USAGE', `--admin ${address}: cannot reach ${url}: ${String(err)}`);
  });
  if (!res.ok)
    throw new MockIstiodError('USAGE', `--admin ${address}: ${url} answered ${res.status}`);
  return [label, await res.json()];
}

function fromFile(text: string): [string, unknown] {
  const [label, path] = labelled(text);
  try {
    return [label, JSON.parse(readFileSync(path, 'utf8')) as unknown];
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new MockIstiodError('USAGE', `-f ${path}: cannot read a config_dump: ${reason}`);
  }
}

function injectionFile(path: string): ValuesSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new MockIstiodError('USAGE', `--inject ${path}: cannot read it: ${reason}`);
  }
  return sourceFromInjection(text, `--inject ${path}`);
}

/** The text output's first lines: where the values came from, and where they differ. */
export function formatSource(source: ValuesSource): string[] {
  return [
    `values: ${source.description}${source.kind === 'seed' ? '; --inject <file> or --from-inject reads them from real istioctl kube-inject output' : ''}`,
    ...source.differences.map((d) => `  differs from the seed: ${d}`),
  ];
}

export async function explainCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const values = parseFlags(argv, OPTIONS, EXPLAIN_USAGE);
  if (!values) return 0;
  if (values.inject !== undefined && values['from-inject'])
    throw new MockIstiodError('USAGE', 'explain: give --inject <file> or --from-inject, not both');
  let source = SEED_SOURCE;
  if (values.inject !== undefined) source = injectionFile(values.inject);
  else if (values['from-inject']) {
    try {
      const run = await sourceFromLabInjection(env);
      if (!run.ok) return fail(run.message, 1);
      source = run.source;
    } catch (err) {
      if (isMockIstiodError(err, 'ISTIO_NOT_FOUND')) return fail(err.message, 1);
      throw err;
    }
  }
  const v = source.values;
  const sources = [
    ...(values.file ?? []).map(fromFile),
    ...(await Promise.all((values.admin ?? []).map(fromAdmin))),
  ];
  if (sources.length === 0)
    throw new MockIstiodError(
      'USAGE',
      'explain: expected -f <config_dump.json> or --admin <host:port>',
    );
  const explained: Explained[] = sources.map(([label, dump]) =>
    explainDump(label, readDumpFacts(dump), v),
  );
  const [first, second] = explained;
  const differences = first && second ? compare(first, second, v) : [];
  if (values.json)
    process.stdout.write(
      `${JSON.stringify({ values: { source: source.kind, description: source.description, ...v, differences: source.differences }, configurations: explained.map(({ label, rows, unknownDestination }) => ({ label, rows, unknownDestination })), differences }, null, 2)}\n`,
    );
  else
    process.stdout.write(
      `${[...formatSource(source), ...formatExplained(explained, differences)].join('\n')}\n`,
    );
  return 0;
}
