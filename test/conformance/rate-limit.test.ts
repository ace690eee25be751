/**
 * istiod's connection rate limit, compared (docs/conformance.md, "The connection rate limit"):
 * istiod-ref started with PILOT_MAX_REQUESTS_PER_SECOND=1.5 and the mock with
 * maxStreamsPerSecond 1.5, each sent the same burst of streams at once. istiod waits for each
 * stream's turn in its own goroutine, so which stream gets which turn is not fixed; how many
 * are answered at once, after waiting their turn, or refused (and with what) is, as long as
 * the burst arrives within a third of a second (the turns fall at 0, 0.67 and 1.33 s).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { podNode } from '../../src/generate/ask-istiod.js';
import { startReference, type ReferenceServer } from '../../src/generate/reference-server.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { AdsTestClient, type AdsTestStream } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import './support/run.js'; // the task.meta.conformance type the table reporter reads
import { kubeObjects } from './support/servers.js';

const RATE = 1.5;
/** Five streams at once: two get a turn within the second istiod waits, three do not. */
const SOTW_STREAMS = 4;
/** An answer this much later than the first waited for its turn (the turns are 667 ms apart). */
const WAITED_MS = 400;
/** Long enough for every turn given (at most 1 s) and a response after it. */
const ANSWER_MS = 3_000;

let dir: string;
let reference: ReferenceServer | undefined;
let mock: TestMockIstiod | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mock-istiod-rate-limit-'));
  const kubeFile = join(dir, 'kube.yaml');
  writeFileSync(kubeFile, kubeObjects([]));
  const rate = String(RATE);
  [reference, mock] = await Promise.all([
    startReference({ kubeFile, istiodEnv: { PILOT_MAX_REQUESTS_PER_SECOND: rate } }),
    startMockIstiod({ maxStreamsPerSecond: RATE, control: false }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([reference?.close(), mock?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** How one stream fared: answered (and when), or ended with a status (and whether at once). */
async function fate(stream: AdsTestStream, openedAt: number): Promise<string | number> {
  const answer = stream.next(ANSWER_MS).then(
    () => performance.now() - openedAt,
    () => undefined,
  );
  const end = stream.done.then((e) => {
    const when = performance.now() - openedAt < 1_000 ? 'at once' : 'late';
    return `ended ${e.code} ${JSON.stringify(e.details)} ${when}`;
  });
  return (await Promise.race([answer, end])) ?? (await end);
}

/**
 * Opens the burst on one connection, each stream asking for clusters, and describes the
 * fates, sorted: the first answer is "answered first"; a later one "answered after its turn"
 * when it came at least WAITED_MS after the first (the turns are 667 ms apart, whatever the
 * machine's load adds to both), else "answered with the first".
 */
async function burst(xds: string): Promise<string[]> {
  const client = new AdsTestClient(xds);
  try {
    const node = podNode({ name: 'orders-1', namespace: 'default', ip: '10.1.0.7' });
    const openedAt = performance.now();
    const streams = [...Array.from({ length: SOTW_STREAMS }, () => client.sotw()), client.delta()];
    for (const stream of streams) stream.send({ node, type_url: CLUSTER_TYPE });
    const fates = await Promise.all(streams.map((s) => fate(s, openedAt)));
    const answered = fates.filter((f): f is number => typeof f === 'number').sort((a, b) => a - b);
    const described = answered.map((ms, i) =>
      i === 0
        ? 'answered first'
        : ms - answered[0]! >= WAITED_MS
          ? 'answered after its turn'
          : 'answered with the first',
    );
    return [...described, ...fates.filter((f) => typeof f === 'string')].sort();
  } finally {
    client.close();
  }
}

const TITLE =
  'a burst of streams: one answered first, one after its turn, the rest refused at once with RESOURCE_EXHAUSTED';

it(`Rate limit: ${TITLE}`, async ({ task }) => {
  const [istiod, mocked] = await Promise.all([burst(reference!.xds), burst(mock!.xdsAddress)]);
  const agree = JSON.stringify(istiod) === JSON.stringify(mocked);
  task.meta.conformance = { rule: 'Rate limit', title: TITLE, istiod, mock: mocked, agree };
  const refused =
    'ended 8 "request rate limit exceeded: rate: Wait(n=1) would exceed context deadline" at once';
  expect(istiod).toEqual(['answered after its turn', 'answered first', refused, refused, refused]);
  expect(mocked, "the mock's fates (left: istiod's)").toEqual(istiod);
});
