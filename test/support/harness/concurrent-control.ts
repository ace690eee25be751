/**
 * Concurrent control: many clients change resources, faults, withhold/release and reset
 * through the control API at once, while proxies stream (version-recorder.ts). Every answer
 * is kept with its `x-mock-istiod-revision`; afterwards the answers are replayed in revision
 * order against a model, which must agree with each answer and with the final state.
 * `stale` and `nack` (whose rollback sends an older version on purpose) are left out, so
 * any version that goes back is a bug.
 */
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../../src/xds/type-urls.js';
import { waitFor } from '../../../src/util/wait.js';
import type { TestMockIstiod } from '../../../src/testing/start.js';
import { pushCounter, VersionRecorder } from '../fixtures/version-recorder.js';

export interface ConcurrentOptions {
  clients: number;
  opsPerClient: number;
  proxies: number;
  seed: number;
  random: () => number;
}

type Kind =
  | 'put'
  | 'put-bad'
  | 'fault'
  | 'remove-fault'
  | 'clear-faults'
  | 'withhold'
  | 'release'
  | 'reset'
  | 'push'
  | 'disconnect';

/**
 * How often each change is picked. Clearing changes are rare: with 50 clients at once, a
 * fault must live through the others' changes for its own removal to find it.
 */
const WEIGHTS: Record<Kind, number> = {
  put: 12,
  'put-bad': 4,
  fault: 12,
  'remove-fault': 12,
  'clear-faults': 1,
  withhold: 4,
  release: 4,
  reset: 1,
  push: 4,
  disconnect: 4,
};
const KINDS = (Object.entries(WEIGHTS) as [Kind, number][]).flatMap(([kind, n]) =>
  Array.from({ length: n }, () => kind),
);

interface Answer {
  kind: Kind;
  marker: string;
  faultId?: string;
  status: number;
  revision: number;
  body: Record<string, unknown>;
}

export interface ConcurrentReport {
  answers: number;
  revisions: number;
  byKind: Record<string, number>;
  streamsOpened: number;
  responses: number;
  /** Versions that went back on a stream (must be empty). */
  backwards: string[];
  /** Answers or final state the model disagrees with (must be empty). */
  disagreements: string[];
  seconds: number;
}

function cluster(name: string) {
  return {
    '@type': 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
    name,
    type: 'STATIC',
    connect_timeout: '1s',
  };
}

/** The scenarios that hold responses back: `release` removes them. */
const HOLDING = new Set(['withhold', 'partial']);

const FAULTS = [
  { scenario: 'delay', params: { ms: 2 } },
  { scenario: 'delay', params: { ms: 1 } },
  { scenario: 'withhold', scope: { types: ['LDS'] } },
  { scenario: 'partial', params: { answer: ['CDS'] } },
];

function request(kind: Kind, marker: string, faultIds: readonly string[], rand: () => number) {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)] as T;
  switch (kind) {
    case 'put':
      return { method: 'PUT', path: '/control/resources', body: [cluster(marker)] };
    case 'put-bad':
      return {
        method: 'PUT',
        path: '/control/resources',
        body: [{ ...cluster(marker), connect_timeout: 'soon' }],
      };
    case 'fault':
      return { method: 'POST', path: '/control/faults', body: { ...pick(FAULTS), id: marker } };
    case 'remove-fault':
      return {
        method: 'DELETE',
        // The client's newest fault (another client may have cleared it), or a name never used.
        path: `/control/faults/${faultIds.at(-1) ?? marker}`,
      };
    case 'clear-faults':
      return { method: 'DELETE', path: '/control/faults' };
    case 'push':
    case 'disconnect':
    case 'withhold':
    case 'release':
    case 'reset':
      return { method: 'POST', path: `/control/${kind}` };
  }
}

async function call(base: string, req: { method: string; path: string; body?: unknown }) {
  const res = await fetch(base + req.path, {
    method: req.method,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, revision: Number(res.headers.get('x-mock-istiod-revision')), body };
}

async function clusterNames(base: string): Promise<string[]> {
  const { body } = await call(base, { method: 'GET', path: '/control/resources' });
  const sets = body.sets as { resources: { '@type': string; name: string }[] }[];
  return sets
    .flatMap((s) => s.resources)
    .filter((r) => r['@type'] === 'type.googleapis.com/envoy.config.cluster.v3.Cluster')
    .map((r) => r.name)
    .sort();
}

/** Replays the answers in revision order; returns what disagrees with the model. */
function replay(
  answers: Answer[],
  startup: string[],
): { names: string[]; withheld: boolean; faults: Map<string, boolean>; problems: string[] } {
  const problems: string[] = [];
  let names = startup;
  let withheld = false;
  let lastPut = 0;
  /** Applied faults, and whether each holds responses (a release removes those). */
  const faults = new Map<string, boolean>();
  const sorted = [...answers].sort((a, b) => a.revision - b.revision);
  sorted.forEach((a, i) => {
    if (a.revision !== i + 1) problems.push(`revision ${a.revision} in place ${i + 1}`);
    const say = (what: string) =>
      problems.push(
        `#${a.revision} ${a.kind} ${a.marker}: ${what} (${a.status} ${JSON.stringify(a.body)})`,
      );
    switch (a.kind) {
      case 'put': {
        if (a.status !== 200) return say('refused');
        const counter = pushCounter(String(a.body.version));
        if (counter <= lastPut) say(`version ${counter} not after ${lastPut}`);
        lastPut = counter;
        names = [a.marker];
        return;
      }
      case 'put-bad':
        return a.status === 400 ? undefined : say('expected 400');
      case 'fault':
        if (a.status !== 201) return say('refused');
        faults.set(a.marker, HOLDING.has((a.body.fault as { scenario: string }).scenario));
        return;
      case 'remove-fault': {
        const id = a.faultId ?? '';
        if ((a.status === 200) !== faults.has(id))
          say(`fault ${id} was ${faults.has(id) ? '' : 'not '}applied`);
        faults.delete(id);
        return;
      }
      case 'clear-faults':
        if ((a.body.removed as unknown[]).length !== faults.size)
          say(`${faults.size} faults were applied`);
        faults.clear();
        return;
      case 'withhold':
      case 'release':
        withheld = a.kind === 'withhold';
        if (a.kind === 'release') for (const [id, holds] of faults) if (holds) faults.delete(id);
        if (a.body.withheld !== withheld) say(`withheld should be ${withheld}`);
        return;
      case 'reset':
        if (a.body.removedFaults !== faults.size) say(`${faults.size} faults were applied`);
        faults.clear();
        withheld = false;
        names = startup;
        return;
      case 'push':
      case 'disconnect':
        return a.status === 200 ? undefined : say('refused');
    }
  });
  return { names, withheld, faults, problems };
}

export async function concurrentControl(
  server: TestMockIstiod,
  options: ConcurrentOptions,
): Promise<ConcurrentReport> {
  const base = `http://127.0.0.1:${server.addresses.control?.port}`;
  const startup = await clusterNames(base);
  const recorder = new VersionRecorder(server.xdsAddress);
  const started = Date.now();
  recorder.start(options.proxies);
  const answers: Answer[] = [];
  const client = async (c: number) => {
    const applied: string[] = [];
    for (let op = 0; op < options.opsPerClient; op++) {
      const kind = KINDS[Math.floor(options.random() * KINDS.length)] as Kind;
      const marker = `c${c}-op${op}`;
      const req = request(kind, marker, applied, options.random);
      const answer = await call(base, req);
      const faultId =
        kind === 'remove-fault' ? decodeURIComponent(req.path.split('/').pop() ?? '') : undefined;
      if (kind === 'fault' && answer.status === 201) applied.push(marker);
      answers.push({ kind, marker, faultId, ...answer });
    }
  };
  try {
    await Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)));
    const model = replay(answers, startup);
    const disagreements = [...model.problems];
    const final = await clusterNames(base);
    if (JSON.stringify(final) !== JSON.stringify([...model.names].sort()))
      disagreements.push(
        `final clusters ${final.join(',')}, last accepted change says ${model.names.join(',')}`,
      );
    const state = await call(base, { method: 'GET', path: '/control/state' });
    if (state.body.withheld !== model.withheld)
      disagreements.push(`final withheld ${String(state.body.withheld)}`);
    const listed = await call(base, { method: 'GET', path: '/control/faults' });
    const ids = (listed.body.faults as { id: string }[]).map((f) => f.id).sort();
    if (JSON.stringify(ids) !== JSON.stringify([...model.faults.keys()].sort()))
      disagreements.push(
        `final faults ${ids.join(',')}, the answers say ${[...model.faults.keys()].join(',')}`,
      );
    // Let everything go, then every proxy must hold the versions the server serves now.
    await call(base, { method: 'POST', path: '/control/reset' });
    const want = [CLUSTER_TYPE, LISTENER_TYPE].map((t) => server.snapshot().get(t).version);
    await waitFor(
      () =>
        [CLUSTER_TYPE, LISTENER_TYPE].every((t, i) =>
          recorder.latest(t).every((v) => v === want[i]),
        ),
      {
        timeoutMs: 30_000,
        description: 'every proxy to hold the final versions',
        explain: () => JSON.stringify(recorder.latest(CLUSTER_TYPE)),
      },
    );
    const byKind: Record<string, number> = {};
    for (const a of answers)
      byKind[`${a.kind} ${a.status}`] = (byKind[`${a.kind} ${a.status}`] ?? 0) + 1;
    return {
      answers: answers.length,
      revisions: Math.max(...answers.map((a) => a.revision)),
      byKind,
      streamsOpened: recorder.streams.length,
      responses: recorder.responses,
      backwards: recorder.backwards,
      disagreements,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    recorder.close();
  }
}
