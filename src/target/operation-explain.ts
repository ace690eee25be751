/**
 * `GET /ui/explain` (src/api/ops/explain.ts): finds each asked proxy's Envoy admin API (its
 * node metadata's ENVOY_ADMIN_ADDRESS, or one added on the page), reads its config_dump, and
 * shapes what `mock-istiod explain` says of it into the API's answer: the rows of each
 * configuration and, for two, where they differ and why.
 */
import type { ExplainAnswer, ExplainedConfig, ExplainQuery } from '../api/explain-answers.js';
import { invalid, Refusal } from '../api/operation.js';
import type { StreamView } from '../core/events.js';
import { EnvoyAdminClient } from '../envoy/admin-client.js';
import { readDumpFacts } from '../explain/dump-facts.js';
import { compare, explainDump, type Explained } from '../explain/explain.js';
import { type InjectionValues } from '../explain/injection-values.js';
import { parseAdminAddress } from '../live/ui-admins.js';
import type { Problem } from '../util/problems.js';
import { reasonOf } from '../util/reason.js';
import { isMockIstiodError } from '../util/errors.js';
import { SEED_SOURCE, sourceFromLabInjection, type ValuesSource } from './injection-source.js';

export interface ExplainParts {
  streams(): readonly StreamView[];
  /** The admin API the live page knows for a connected proxy (UiAdmins.addressOf). */
  addressOf(stream: StreamView): string | undefined;
  /** Reads an Envoy's `/config_dump` (default: over its admin API, 5 s deadline). */
  fetchDump?: (adminUrl: string) => Promise<unknown>;
  /** The seed's values to use instead of the table's (tests). */
  values?: InjectionValues;
  /** `values=inject`: the values of the real istioctl kube-inject of the lab's Deployment. */
  injectSource?: () => Promise<ValuesSource | Refusal>;
}

let labInjection: Promise<ValuesSource | Refusal> | undefined;

/** istioctl kube-inject of the lab's Deployment, run once per process (its output is fixed). */
function labInjectSource(): Promise<ValuesSource | Refusal> {
  labInjection ??= sourceFromLabInjection(process.env).then(
    (run) =>
      run.ok
        ? run.source
        : new Refusal(503, 'cannot run istioctl kube-inject', [
            { path: 'values', message: run.message },
          ]),
    (err: unknown) => {
      if (isMockIstiodError(err, 'ISTIO_NOT_FOUND') || isMockIstiodError(err, 'USAGE'))
        return new Refusal(503, 'cannot run istioctl kube-inject', [
          { path: 'values', message: err.message },
        ]);
      throw err;
    },
  );
  const pending = labInjection;
  // A refusal (no istioctl yet) is not kept: the next request tries again.
  void pending.then((r) => {
    if (r instanceof Refusal && labInjection === pending) labInjection = undefined;
  });
  return pending;
}

interface Source {
  label: string;
  admin: string;
  nodeId?: string;
  /** The query field it came from, for a problem's path. */
  path: string;
}

const HOW_TO_NAME_IT =
  'name it in the bootstrap’s node metadata (ENVOY_ADMIN_ADDRESS: 127.0.0.1:15000; for pilot-agent, ISTIO_META_ENVOY_ADMIN_ADDRESS=127.0.0.1:15000), add it with POST /ui/admins {"address": "host:port"}, or ask by address: ?admin=host:port';

function fetchConfigDump(adminUrl: string): Promise<unknown> {
  return new EnvoyAdminClient(adminUrl, { requestTimeoutMs: 5_000 }).configDump();
}

/** The shape the API answers: what the CLI's `--json` prints, plus where each dump came from. */
export function shapeExplained(
  sources: readonly Pick<Source, 'admin' | 'nodeId'>[],
  explained: readonly Explained[],
  differences: readonly string[],
  source: Pick<ValuesSource, 'kind' | 'description' | 'differences'> = SEED_SOURCE,
): ExplainAnswer {
  const configurations = explained.map((e, i): ExplainedConfig => {
    const source = sources[i];
    return {
      label: e.label,
      ...(source?.nodeId !== undefined && { nodeId: source.nodeId }),
      admin: source?.admin ?? '',
      rows: e.rows.map((r) => ({ ...r, objects: [...r.objects] })),
      ...(e.unknownDestination !== undefined && { unknownDestination: e.unknownDestination }),
    };
  });
  return {
    values: {
      source: source.kind,
      description: source.description,
      differences: [...source.differences],
    },
    configurations,
    differences: [...differences],
  };
}

/** Which admin API each asked proxy or address is; a refusal naming every one it cannot find. */
export function resolveSources(
  parts: Pick<ExplainParts, 'streams' | 'addressOf'>,
  query: ExplainQuery,
): Source[] | Refusal {
  if (query.proxies.length === 0 && query.admins.length === 0)
    return invalid('invalid explain request', [
      {
        path: 'proxy',
        message:
          'expected proxy=<node id> (a connected proxy) or admin=<host:port> (an Envoy admin API)',
      },
    ]);
  const sources: Source[] = [];
  const bad: Problem[] = [];
  const missing: Problem[] = [];
  const unknownAddress: Problem[] = [];
  query.admins.forEach((text, i) => {
    const path = `admin[${i}]`;
    const parsed = parseAdminAddress(text);
    if (!parsed.ok) {
      bad.push(...parsed.problems.map((p) => ({ ...p, path })));
      return;
    }
    sources.push({ label: parsed.value.replace(/^http:\/\//, ''), admin: parsed.value, path });
  });
  const streams = parts.streams();
  query.proxies.forEach((id, i) => {
    const path = `proxy[${i}]`;
    const stream = streams.find((s) => s.proxy.nodeId === id || s.proxy.id === id);
    if (!stream) {
      const known = [...new Set(streams.map((s) => s.proxy.nodeId))];
      const message = `no connected proxy has node id "${id}"; ${known.length > 0 ? `connected: ${known.join(', ')}` : 'none is connected'}`;
      missing.push({ path, message });
      return;
    }
    const admin = parts.addressOf(stream);
    if (admin === undefined) {
      const message = `the mock does not know the admin address of ${stream.proxy.nodeId}'s Envoy: ${HOW_TO_NAME_IT}`;
      unknownAddress.push({ path, message });
      return;
    }
    sources.push({ label: stream.proxy.id, admin, nodeId: stream.proxy.nodeId, path });
  });
  if (bad.length > 0) return invalid('invalid explain request', bad);
  if (missing.length > 0) return new Refusal(404, 'no such connected proxy', missing);
  if (unknownAddress.length > 0)
    return new Refusal(409, 'Envoy admin address not known', unknownAddress);
  return sources;
}

export async function explainProxies(
  parts: ExplainParts,
  query: ExplainQuery,
): Promise<ExplainAnswer | Refusal> {
  const sources = resolveSources(parts, query);
  if (sources instanceof Refusal) return sources;
  const fetchDump = parts.fetchDump ?? fetchConfigDump;
  let source: ValuesSource = parts.values ? { ...SEED_SOURCE, values: parts.values } : SEED_SOURCE;
  if (query.values === 'inject') {
    const got = await (parts.injectSource ?? labInjectSource)();
    if (got instanceof Refusal) return got;
    source = got;
  }
  const values = source.values;
  const dumps = await Promise.all(
    sources.map(async (s) => {
      try {
        return { ok: true as const, dump: await fetchDump(s.admin) };
      } catch (err) {
        return {
          ok: false as const,
          problem: { path: s.path, message: `${s.admin}/config_dump: ${reasonOf(err)}` },
        };
      }
    }),
  );
  const failed = dumps.flatMap((d) => (d.ok ? [] : [d.problem]));
  if (failed.length > 0) return new Refusal(503, "cannot read the Envoy's config_dump", failed);
  const explained = dumps.map((d, i) =>
    explainDump(sources[i]?.label ?? '', readDumpFacts(d.ok ? d.dump : undefined), values),
  );
  const [first, second] = explained;
  const differences = first && second ? compare(first, second, values) : [];
  return shapeExplained(sources, explained, differences, source);
}
