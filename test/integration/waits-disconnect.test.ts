/**
 * Waits end with their clients: a `wait-for-ack` (up to 300 s) or a journal long poll (up to
 * 60 s) whose HTTP client goes away stops waiting at once, its timer cleared and its
 * listeners removed, and later requests do no work for it. While they wait, an xDS request
 * wakes only the waits for its type and looks at its own stream, not every stream.
 */
import { describe, expect, vi } from 'vitest';
import { targetOf } from '../../src/target/operation-target.js';
import type { TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack, handshake } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

const WAITS = 40;

/** What a waiting operation leaves in the process: listeners, journal sinks, timers. */
function footprint(mock: TestMockIstiod) {
  return {
    request: mock.events.listenerCount('request'),
    snapshot: mock.events.listenerCount('snapshot'),
    sinks: mock.journal.sinkCount,
    timers: process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length,
  };
}

/** Opens `count` GETs that wait, each with its own AbortController. */
function openWaits(mock: TestMockIstiod, paths: readonly string[], count: number) {
  const base = `http://127.0.0.1:${mock.addresses.control?.port}`;
  return Array.from({ length: count }, (_, i) => {
    const controller = new AbortController();
    const answer = fetch(base + paths[i % paths.length]!, { signal: controller.signal }).then(
      (r) => r.status,
      (err: unknown) => (err instanceof Error ? err.name : 'error'),
    );
    return { controller, answer };
  });
}

describe('waits end with their clients', () => {
  it('an aborted wait-for-ack or journal long poll leaves no listener, sink or timer', async ({
    mock,
    ads,
  }) => {
    const before = footprint(mock);
    const waits = openWaits(
      mock,
      [
        '/control/wait-for-ack?type=LDS&version=never&timeout=300s',
        '/debug/journal?kind=nack&wait=60s',
      ],
      WAITS,
    );
    // Each wait holds one timer; the journal's hold a sink each. The timers counted before may
    // have fired since (the fixture's own), so the waits' 40 are counted as a floor, not on top.
    await waitFor(
      () => {
        const now = footprint(mock);
        return now.sinks === before.sinks + WAITS / 2 && now.timers >= WAITS;
      },
      { description: `${WAITS} waits open`, explain: () => JSON.stringify(footprint(mock)) },
    );

    for (const wait of waits) wait.controller.abort();
    expect(new Set(await Promise.all(waits.map((w) => w.answer)))).toEqual(new Set(['AbortError']));

    await waitFor(
      () => {
        const now = footprint(mock);
        return (
          now.request === before.request &&
          now.snapshot === before.snapshot &&
          now.sinks === before.sinks &&
          now.timers <= before.timers + 3
        );
      },
      {
        description: 'the waits gone (listeners, sinks and timers back where they were)',
        explain: () => `before ${JSON.stringify(before)}, now ${JSON.stringify(footprint(mock))}`,
      },
    );

    // Requests after that do no work for the waits that went away: nothing scans the streams.
    const scans = vi.spyOn(targetOf(mock), 'openStreams');
    const stream = ads.sotw();
    const { lds } = await handshake(stream);
    ack(stream, lds);
    await mock.waitForRequest(LISTENER_TYPE, { kind: 'ack' });
    expect(scans).not.toHaveBeenCalled();
  });

  it('a request wakes only the waits for its type, reading its own stream', async ({
    mock,
    ads,
  }) => {
    const stream = ads.sotw();
    const { lds } = await handshake(stream);
    const scans = vi.spyOn(targetOf(mock), 'openStreams');
    const waits = openWaits(mock, ['/control/wait-for-ack?type=LDS&timeout=30s'], 5);
    // Each wait looks at every stream once, when it begins.
    await waitFor(() => scans.mock.calls.length >= 5, { description: 'the 5 waits begun' });
    scans.mockClear();
    // Requests of other types (CDS ACKs again, stale) wake nothing that scans.
    for (let i = 0; i < 20; i += 1) stream.send({ type_url: CLUSTER_TYPE, response_nonce: 'old' });
    ack(stream, lds);
    expect(new Set(await Promise.all(waits.map((w) => w.answer)))).toEqual(new Set([200]));
    expect(scans).not.toHaveBeenCalled();
  });
});
