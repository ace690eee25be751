/**
 * A seeded fuzz of the control API's JSON bodies: every route that takes a body, and the
 * bodiless POSTs given one anyway. Inputs are valid bodies made from the route's schema in the
 * OpenAPI document (and the fault scenarios' parameter schemas), those bodies mutated one
 * field at a time, JSON of nothing in particular, bytes that are not JSON, and now and then a
 * body over the size limit. Every answer must be a 2xx, or a 4xx that says why in one line
 * (`error`) and, for a JSON body refused for its content, lists each problem with its field
 * path; never a 5xx, never a stack trace. Afterwards the resources a well-formed xDS client
 * gets are the ones the last accepted change installed.
 */
import type { EventEmitter } from 'node:events';
import { envoyRoot } from '../../../src/xds/protos.js';
import { fromSchema, mutateJson, notJson, pick, randomJson } from './fuzz-json.js';
import { requestClustersOnce } from '../fixtures/handshake.js';

type Rand = () => number;
type Schema = Record<string, unknown>;

export interface ControlInput {
  method: string;
  path: string;
  body: Buffer;
}

interface BodyRoute {
  method: string;
  path: string;
  /** Valid bodies to mutate (made from the schema, plus known good ones). */
  valid: (rand: Rand) => unknown;
}

const BODILESS = [
  ['POST', '/control/withhold'],
  ['POST', '/control/release'],
  ['POST', '/control/up'],
  ['POST', '/control/resources/reload'],
] as const;

/** The routes that take a body, from the running mock's OpenAPI document. */
export async function bodyRoutes(base: string): Promise<BodyRoute[]> {
  const doc = (await (await fetch(`${base}/control/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
    >;
  };
  const current = (await (await fetch(`${base}/control/resources`)).json()) as {
    sets: { resources: unknown[] }[];
  };
  const served = current.sets[0]?.resources ?? [];
  const routes: BodyRoute[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const schema = op.requestBody?.content['application/json']?.schema;
      if (!schema) continue;
      const fromDoc = (rand: Rand) => fromSchema(rand, schema);
      const valid =
        path === '/control/resources'
          ? (rand: Rand) => (rand() < 0.7 ? { resources: served } : fromDoc(rand))
          : fromDoc;
      routes.push({ method: method.toUpperCase(), path, valid });
    }
  }
  for (const [method, path] of BODILESS) routes.push({ method, path, valid: () => ({}) });
  return routes;
}

/** One input: a route and the bytes of its body. */
export function controlInput(rand: Rand, routes: readonly BodyRoute[]): ControlInput {
  const route = pick(rand, routes);
  const valid = route.valid(rand);
  const r = rand();
  let body: Buffer;
  if (r < 0.15) body = Buffer.from(JSON.stringify(valid));
  else if (r < 0.7) {
    let value = mutateJson(rand, valid as never);
    if (rand() < 0.3) value = mutateJson(rand, value);
    body = Buffer.from(JSON.stringify(value));
  } else if (r < 0.85) body = Buffer.from(JSON.stringify(randomJson(rand)));
  else if (r < 0.995) body = notJson(rand, JSON.stringify(valid));
  else body = Buffer.alloc(1024 * 1024 + 1, 0x20);
  return { method: route.method, path: route.path, body };
}

export interface ControlAnswer {
  status: number;
  text: string;
}

const STACK = /\n\s+at |\.(ts|js):\d+/;

/** What is wrong with an answer to `input`, or '' when it is as promised. */
export function judgeControlAnswer(input: ControlInput, answer: ControlAnswer): string {
  if (answer.status >= 500) return `${answer.status}: ${answer.text.slice(0, 200)}`;
  if (STACK.test(answer.text)) return `a stack trace in the answer: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400) return '';
  let parsed: { error?: unknown; problems?: { path?: unknown; message?: unknown }[] };
  try {
    parsed = JSON.parse(answer.text) as typeof parsed;
  } catch {
    return `a ${answer.status} whose answer is not JSON: ${answer.text.slice(0, 200)}`;
  }
  if (typeof parsed.error !== 'string' || parsed.error === '') {
    return `a ${answer.status} without an error line`;
  }
  if (answer.status !== 400 || parsed.error.startsWith('request body is not valid JSON')) return '';
  const problems = parsed.problems ?? [];
  const located = problems.every(
    (p) => typeof p.path === 'string' && typeof p.message === 'string',
  );
  if (problems.length === 0 || !located) {
    return `a 400 for ${input.method} ${input.path} without field paths: ${parsed.error.slice(0, 200)}`;
  }
  return '';
}

export async function sendControl(base: string, input: ControlInput): Promise<ControlAnswer> {
  const res = await fetch(`${base}${input.path}`, {
    method: input.method,
    body: input.body,
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, text: await res.text() };
}

export interface FuzzReport {
  tried: number;
  byStatus: Record<string, number>;
  /** The first problems found (input and what was wrong), at most 20. */
  failures: { input: string; problem: string }[];
}

type Fail = (input: string, problem: string) => void;

/** How many listeners a mock's events have, of every kind. */
export function listenerCount(istiod: { events: EventEmitter }): () => number {
  return () =>
    istiod.events.eventNames().reduce<number>((n, e) => n + istiod.events.listenerCount(e), 0);
}

/**
 * Sends `count` inputs (`concurrency` at a time) and judges every answer; then resets the
 * mock and checks a well-formed xDS client is served the clusters the control API reports.
 * The mock runs in this process, so a process warning (a timer too long for Node) during the
 * run is a finding too, and so are event `listeners` left behind once every fault is removed.
 */
export async function fuzzControl(
  base: string,
  xdsAddress: string,
  rand: Rand,
  count: number,
  deadline = Number.POSITIVE_INFINITY,
  listeners: () => number = () => 0,
  concurrency = 8,
): Promise<FuzzReport> {
  const routes = await bodyRoutes(base);
  const listening = listeners();
  const report: FuzzReport = { tried: 0, byStatus: {}, failures: [] };
  const fail: Fail = (input, problem) => {
    if (report.failures.length < 20) report.failures.push({ input, problem });
  };
  const onWarning = (warning: Error) => fail('(a warning)', `${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    while (report.tried < count && Date.now() < deadline) {
      const size = Math.min(concurrency, count - report.tried);
      const batch = Array.from({ length: size }, () => controlInput(rand, routes));
      const answers = await Promise.all(batch.map((input) => sendControl(base, input)));
      for (const [i, answer] of answers.entries()) {
        const input = batch[i] as ControlInput;
        report.tried += 1;
        report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
        const problem = judgeControlAnswer(input, answer);
        const shown = `${input.method} ${input.path} ${input.body.subarray(0, 300).toString('utf8')}`;
        if (problem) fail(shown, problem);
      }
    }
  } finally {
    process.off('warning', onWarning);
  }
  await checkServed(base, xdsAddress, fail);
  // The reset removed every fault: their listeners must have gone with them.
  if (listeners() !== listening)
    fail('(afterwards)', `${listeners()} event listeners, ${listening} before`);
  return report;
}

/** After a reset, a new xDS client gets the clusters `GET /control/resources` reports. */
async function checkServed(base: string, xdsAddress: string, fail: Fail): Promise<void> {
  await fetch(`${base}/control/reset`, { method: 'POST' });
  const served = await servedClusters(base);
  const clusterType = envoyRoot().lookupType('envoy.config.cluster.v3.Cluster');
  const got = (await requestClustersOnce(xdsAddress)).resources
    .map((r) => (clusterType.decode(r.value) as unknown as { name: string }).name)
    .sort();
  if (JSON.stringify(got) !== JSON.stringify(served)) {
    fail(
      '(afterwards)',
      `xDS served ${JSON.stringify(got)}, the control API says ${JSON.stringify(served)}`,
    );
  }
}

/** The cluster names of the first resource set the control API reports. */
async function servedClusters(base: string): Promise<string[]> {
  const current = (await (await fetch(`${base}/control/resources`)).json()) as {
    sets: { resources: { '@type': string; name?: string }[] }[];
  };
  return (current.sets[0]?.resources ?? [])
    .filter((r) => r['@type'].endsWith('.Cluster'))
    .map((r) => r.name ?? '')
    .sort();
}
