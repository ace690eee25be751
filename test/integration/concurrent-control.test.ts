/**
 * Concurrent control: 20 clients change the mock at once through the control API while 10
 * proxies stream; the answers, replayed in `x-mock-istiod-revision` order, agree with the
 * final state, and no proxy is ever sent a version older than one it had.
 * scripts/reliability.ts runs it bigger (docs/RELIABILITY.md).
 */
import { expect } from 'vitest';
import { concurrentControl } from '../support/harness/concurrent-control.js';
import { seededRandom } from '../support/fixtures/raw-ads.js';
import { it } from '../support/fixtures/test.js';

const SEED = Number(process.env.MOCK_ISTIOD_CONTROL_SEED ?? 20261201);

it(
  'keeps the last accepted change and never sends a version backwards',
  { timeout: 90_000 },
  async ({ startMock }) => {
    // Proxies reconnect at will: istiod's connection rate limit is not what this is about.
    const server = await startMock({ journalSize: 1000, maxStreamsPerSecond: 0 });
    const report = await concurrentControl(server, {
      clients: 20,
      opsPerClient: 15,
      proxies: 10,
      seed: SEED,
      random: seededRandom(SEED),
    });
    expect(report.disagreements).toEqual([]);
    expect(report.backwards).toEqual([]);
    expect(report.revisions).toBe(300);
    expect(report.responses).toBeGreaterThan(10);
  },
);
