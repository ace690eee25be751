/**
 * istiod's connection rate limit on the mock's real gRPC port (src/server/stream-rate-limit.ts):
 * on by default, applied when a stream opens (before its first request is read), a waiting
 * stream that goes away gives its turn back, a closing mock ends the waiting ones, and 0 turns
 * it off. The comparison with istiod itself: test/conformance/rate-limit.test.ts.
 */
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { expect } from 'vitest';
import { defaultStreamsPerSecond, RATE_LIMIT_MESSAGE } from '../../src/server/stream-rate-limit.js';
import { AdsTestClient, type AdsTestStream, type StreamEnd } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { it } from '../support/fixtures/test.js';

const REFUSED: StreamEnd = { code: grpc.status.RESOURCE_EXHAUSTED, details: RATE_LIMIT_MESSAGE };
const NODE = { id: 'sidecar~10.0.0.1~rate.default~default.svc.cluster.local' };

/** Whether `stream` is still open after `ms`, else how it ended. */
async function endWithin(stream: AdsTestStream, ms: number): Promise<StreamEnd | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), ms)));
  const end = await Promise.race([stream.done, open]);
  clearTimeout(timer);
  return end;
}

/** A stream asking for clusters is answered: its turn came. */
async function answered(stream: AdsTestStream): Promise<boolean> {
  stream.send({ node: NODE, type_url: CLUSTER_TYPE });
  const response = await stream.next(3_000);
  return response.type_url === CLUSTER_TYPE;
}

function burst(ads: AdsTestClient, count: number): AdsTestStream[] {
  return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? ads.sotw() : ads.delta()));
}

it("is on by default, at istiod's rate: a burst beyond one second's turns is refused at once", async ({
  mock,
  ads,
}) => {
  void mock;
  const perSecond = defaultStreamsPerSecond();
  const streams = burst(ads, perSecond + 15);
  const started = performance.now();
  const ends = await Promise.all(streams.map((s) => endWithin(s, 1_500)));
  const refused = ends.filter((e) => e !== 'open');
  expect(ends[0]).toBe('open');
  expect(refused.length).toBeGreaterThanOrEqual(10);
  for (const end of refused) expect(end).toEqual(REFUSED);
  expect(performance.now() - started).toBeLessThan(3_000);
});

it('refuses before the first request is read, and journals and logs the refusal as istiod does', async ({
  startMock,
  connect,
}) => {
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  const mock = await startMock({ maxStreamsPerSecond: 0.5, logger: pino(sink) });
  const ads = connect(mock);
  const [first, ...rest] = burst(ads, 4);
  const at = performance.now();
  for (const stream of rest) expect(await endWithin(stream, 1_500)).toEqual(REFUSED);
  expect(performance.now() - at).toBeLessThan(1_000);
  expect(await answered(first!)).toBe(true);
  expect(mock.journal.query({ kind: 'rejected' }).map((e) => e.reason)).toEqual(
    rest.map(() => RATE_LIMIT_MESSAGE),
  );
  // istiod's warning, with the client's address.
  const warnings = logged.filter((m) => m.includes('exceeded rate limit'));
  expect(warnings).toHaveLength(rest.length);
  expect(warnings[0]).toMatch(
    /^ADS: "127\.0\.0\.1:\d+" exceeded rate limit: rate: Wait\(n=1\) would exceed context deadline$/,
  );
});

it('turns a stream away before it is authenticated: RESOURCE_EXHAUSTED, not UNAUTHENTICATED', async ({
  startMock,
}) => {
  const mock = await startMock({ tls: true, maxStreamsPerSecond: 0.5 });
  const credentials = grpc.credentials.createSsl(Buffer.from(mock.security.rootCert));
  const client = new AdsTestClient(mock.xdsAddress, credentials, {
    'grpc.ssl_target_name_override': 'istiod.istio-system.svc',
  });
  try {
    // Neither carries a token: the first is let in, then refused by authentication.
    const [first, second] = [client.sotw(), client.sotw()];
    expect(await endWithin(first, 3_000)).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      details: 'authentication failure',
    });
    expect(await endWithin(second, 3_000)).toEqual(REFUSED);
  } finally {
    client.close();
  }
});

it('lets a stream wait its turn, and gives the turn back when the stream goes away', async ({
  startMock,
  connect,
}) => {
  const mock = await startMock({ maxStreamsPerSecond: 1 });
  const ads = connect(mock);
  const first = ads.sotw();
  expect(await answered(first)).toBe(true);
  // The next turn is about a second away: this one waits for it, then goes away.
  const gone = ads.sotw();
  expect(await endWithin(gone, 200)).toBe('open');
  gone.close();
  await gone.done;
  // Its turn is free again: the next stream waits for it instead of being refused.
  const next = ads.sotw();
  const at = performance.now();
  expect(await answered(next)).toBe(true);
  expect(performance.now() - at).toBeGreaterThan(300);
});

it('ends the streams still waiting when the mock closes', async ({ startMock, connect }) => {
  const mock = await startMock({ maxStreamsPerSecond: 1 });
  const ads = connect(mock);
  const first = ads.sotw();
  expect(await answered(first)).toBe(true);
  const waiting = ads.sotw();
  expect(await endWithin(waiting, 200)).toBe('open');
  await mock.close();
  expect((await waiting.done).code).toBe(grpc.status.UNAVAILABLE);
});

it('lets every stream in at once with maxStreamsPerSecond: 0', async ({ startMock, connect }) => {
  const mock = await startMock({ maxStreamsPerSecond: 0 });
  const ads = connect(mock);
  const streams = burst(ads, 200);
  const fates = await Promise.all(streams.map((s) => answered(s)));
  expect(fates.every(Boolean)).toBe(true);
});
