/**
 * Concurrent control: 20 clients change the mock at once through the control API while 10
 * proxies stream; the answers, replayed in `x-mock-istiod-revision` order, agree with the
 * final state, and no proxy is ever sent a version older than one it had.
 * scripts/reliability.ts runs it bigger (docs/RELIABILITY.md).
 */
import { afterEach, expect, it } from 'vitest';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { concurrentControl } from '../support/harness/concurrent-control.js';
import { seededRandom } from '../support/fixtures/raw-ads.js';

const SEED = Number(process.env.MOCK_ISTIOD_CONTROL_SEED ?? 20261201);

let server: TestMockIstiod | undefined;
afterEach(async () => {
  await server?.close();
});

it(
  'keeps the last accepted change and never sends a version backwards',
  { timeout: 90_000 },
  async () => {
    server = await startMockIstiod({ journalSize: 1000 });
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
