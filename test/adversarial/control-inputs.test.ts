/**
 * Every control operation's inputs and query strings, from the table of operations
 * (src/api/table.ts), against a running mock with a live page open and a proxy connected
 * whose node id is long: each field gets the hostile values of its type
 * (support/hostile-values.ts) in the query, the body and the path; bodies that are not JSON,
 * nested 100,000 deep, or just over the size limit. No answer may be a 5xx or carry a stack
 * trace; a refusal is a problem body. Then the five checks of verify.ts.
 *
 * One input at a time: the event-loop delay then measures what one input costs the mock (the
 * rule), not how many the machine's two cores can work through at once (floods are
 * pages.test.ts's and http-headers.test.ts's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/table.js';
import type { Operation } from '../../src/api/operation.js';
import type { FieldSchema } from '../../src/core/fields.js';
import { AdsTestClient } from '../../src/testing/ads-client.js';
import { CDS, MIB, eachLimited, request, type HttpAnswer } from './support/attack.js';
import { deepJson, EXPONENTIAL_GLOB, hostileValues, queryText } from './support/hostile-values.js';
import { useTarget, type Target } from './support/target.js';
import { verifyTarget } from './support/verify.js';

const attacked = useTarget();
let target: Target;
beforeAll(() => {
  target = attacked();
});
let client: AdsTestClient;
const answers: { what: string; answer: HttpAnswer }[] = [];

/** Operations whose success takes the port down or ends streams: their inputs still go. */
const WAIT_CAP_MS = 2_000;

beforeAll(async () => {
  client = new AdsTestClient(target.xdsAddress);
  // A proxy whose node id is 150 a's long stays connected: what a glob is matched against.
  const stream = client.sotw();
  stream.send({
    node: { id: `sidecar~127.0.0.1~${'a'.repeat(150)}.ns~ns.svc.cluster.local`, metadata: {} },
    type_url: CDS,
  });
  await stream.next(15_000);
}, 90_000);

afterAll(() => {
  client?.close();
});

/** The slowest answers, which point at an input that holds the event loop. */
const slowest: { what: string; ms: number; url: string }[] = [];

/** The input after which the mock's event loop had been held longest (inputs go one at a time). */
let worst = { what: 'none', maxMs: 0, grossMaxMs: 0 };

/** The inputs that held the loop longest, with the value sent: what a failure names. */
const heaviest: { what: string; maxMs: number; sent: string }[] = [];

async function send(what: string, url: string, init: RequestInit = {}): Promise<void> {
  target.inputs += 1;
  const started = performance.now();
  await target.served.resetLoopDelay();
  try {
    answers.push({
      what,
      answer: await request(url, { ...init, signal: AbortSignal.timeout(WAIT_CAP_MS) }),
    });
  } catch (err) {
    // A wait the client gave up on (its timeout field was honoured): the disconnect must
    // cancel it; anything else is a failure of the mock.
    if ((err as Error).name !== 'TimeoutError') throw err;
  } finally {
    const loop = await target.served.loopDelay();
    if (loop.maxMs > worst.maxMs) {
      worst = {
        what: `${what} ${url.slice(0, 200)}`,
        maxMs: loop.maxMs,
        grossMaxMs: worst.grossMaxMs,
      };
    }
    worst.grossMaxMs = Math.max(worst.grossMaxMs, loop.grossMaxMs);
    const sent = typeof init.body === 'string' ? init.body.slice(0, 60) : url.slice(-60);
    heaviest.push({ what, maxMs: Math.round(loop.maxMs), sent });
    heaviest.sort((a, b) => b.maxMs - a.maxMs).splice(5);
    if (!/wait|journal/i.test(what)) {
      slowest.push({ what, ms: Math.round(performance.now() - started), url: url.slice(0, 120) });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
    }
  }
}

/** Each input's window is its own (send() resets it): the worst one is this test's step. */
function recordWorst(): void {
  const { maxMs, grossMaxMs } = worst;
  target.steps.push({ name: `worst input: ${worst.what}`, p99Ms: 0, maxMs, grossMaxMs });
  worst = { what: 'none', maxMs: 0, grossMaxMs: 0 };
}

function pathOf(op: Operation, fill: string): string {
  return op.path.replace(/:[a-zA-Z]+/g, encodeURIComponent(fill));
}

function inputsOf(op: Operation): [string, FieldSchema][] {
  return Object.entries<FieldSchema>(op.input);
}

describe('control operations with hostile inputs', () => {
  it('each field of each operation, in the query or the body, with values of every kind', async () => {
    const jobs: (() => Promise<void>)[] = [];
    for (const op of OPERATIONS as readonly Operation[]) {
      for (const [field, schema] of inputsOf(op)) {
        for (const value of hostileValues(schema)) {
          const url = `${target.controlUrl}${pathOf(op, 'id')}`;
          if (op.method === 'GET') {
            const query = new URLSearchParams({ [field]: queryText(value) });
            jobs.push(() => send(`${op.name} ?${field}`, `${url}?${query.toString()}`));
          } else {
            jobs.push(() =>
              send(`${op.name} ${field}`, url, {
                method: op.method,
                body: JSON.stringify({ [field]: value }),
              }),
            );
          }
        }
      }
    }
    await eachLimited(jobs, 1, (job) => job());
    console.log(
      `slowest answers: ${JSON.stringify(slowest)}; heaviest on the loop: ${JSON.stringify(heaviest)}`,
    );
    recordWorst();
  }, 240_000);

  it('path segments, bodies that are not JSON, nested 100,000 deep, or over 1 MiB', async () => {
    const bodies = [
      'not json',
      '',
      'null',
      '[]',
      '"string"',
      '1e999999',
      deepJson(100_000),
      `{"a":${deepJson(100_000)}}`,
      `{"resources":${deepJson(50_000)}}`,
      '{"__proto__":{"polluted":true}}',
      `{"x":"${'x'.repeat(MIB)}"}`,
      '\u0000\u0001\u0002',
      Buffer.from([0xff, 0xfe, 0xfd]).toString('latin1'),
    ];
    const segments = ['x'.repeat(10_000), '..', '%2e%2e%2f', '\u0000', '*', EXPONENTIAL_GLOB];
    const jobs: (() => Promise<void>)[] = [];
    for (const op of OPERATIONS as readonly Operation[]) {
      if (op.method !== 'GET') {
        for (const body of bodies)
          jobs.push(() =>
            send(`${op.name} body`, `${target.controlUrl}${op.path}`, { method: op.method, body }),
          );
      }
      if (op.path.includes(':'))
        for (const segment of segments)
          jobs.push(() =>
            send(`${op.name} path`, `${target.controlUrl}${pathOf(op, segment)}`, {
              method: op.method,
            }),
          );
      jobs.push(() =>
        send(`${op.name} query`, `${target.controlUrl}${op.path}?${'q=1&'.repeat(20_000)}`, {
          method: op.method,
        }),
      );
    }
    await eachLimited(jobs, 1, (job) => job());
    recordWorst();
  }, 240_000);

  it('answered every input with a status below 500, and every refusal with a problem body', () => {
    const failures = answers.filter(({ answer }) => answer.status >= 500 && answer.status !== 503);
    expect(
      failures.map((f) => `${f.what}: ${f.answer.status} ${f.answer.body.slice(0, 200)}`),
    ).toEqual([]);
    const traces = answers.filter(({ answer }) => /\n\s+at .+:\d+:\d+/.test(answer.body));
    expect(traces.map((f) => f.what)).toEqual([]);
    const bare = answers.filter(
      ({ answer }) =>
        answer.status >= 400 && answer.status !== 404 && !answer.contentType.includes('json'),
    );
    expect(bare.map((f) => `${f.what}: ${f.answer.status} ${f.answer.contentType}`)).toEqual([]);
  });

  it('lives, never stalls, stays small, serves the last good set, loses no journal line', async () => {
    // Some inputs were valid (a fault applied, the port taken down): the per-test cleanup
    // brings back the start-up state, which must be the last good file set.
    const reset = await request(`${target.controlUrl}/control/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    const figures = await verifyTarget('control-inputs', target);
    expect(figures.inputs).toBeGreaterThan(1_000);
  });
});
