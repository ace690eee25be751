/**
 * A seeded fuzz of both ADS methods: random bytes, valid requests with odd values, and
 * mutated requests. Every stream must end with a precise status (or be answered), the server
 * must keep serving a well-formed client, and no session may be left behind.
 * MOCK_ISTIOD_FUZZ_SEED and MOCK_ISTIOD_FUZZ_CASES change the run (docs/RELIABILITY.md).
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { fuzzCase } from '../support/harness/fuzz-inputs.js';
import { requestClustersOnce } from '../support/fixtures/handshake.js';
import { RawAdsClient, seededRandom, type RawOutcome } from '../support/fixtures/raw-ads.js';
import { it } from '../support/fixtures/test.js';

const SEED = Number(process.env.MOCK_ISTIOD_FUZZ_SEED ?? 20261130);
const CASES = Number(process.env.MOCK_ISTIOD_FUZZ_CASES ?? 300);
const BUDGET_MS = 20_000;
/** A stream may be answered (then cancelled by the client), refused precisely, or left waiting. */
const ALLOWED = new Set([
  grpc.status.CANCELLED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.RESOURCE_EXHAUSTED,
  // An empty or unknown type URL without an identity: istiod's api generator refuses it
  // (conformance case "Types without a generator: an unknown type URL without an identity").
  grpc.status.UNAUTHENTICATED,
]);

it(
  `survives ${CASES} seeded fuzz cases (seed ${SEED}) on both protocols`,
  { timeout: 60_000 },
  async ({ startMock }) => {
    // Batches of cases as fast as they go, not istiod's connection rate limit: off.
    const server = await startMock({ maxStreamsPerSecond: 0 });
    const raw = new RawAdsClient(server.xdsAddress);
    const rand = seededRandom(SEED);
    const outcomes: RawOutcome[] = [];
    const deadline = Date.now() + BUDGET_MS;
    try {
      while (outcomes.length < CASES && Date.now() < deadline) {
        const batch = Array.from({ length: 10 }, () => fuzzCase(rand));
        outcomes.push(...(await Promise.all(batch.map((c) => raw.run(c.method, c.messages)))));
      }
    } finally {
      raw.close();
    }
    const unexpected = outcomes.filter((o) => !ALLOWED.has(o.code));
    expect(unexpected).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(Math.min(CASES, 100));
    // Precise refusals were made, and some fuzzed streams were served.
    expect(outcomes.some((o) => o.code === grpc.status.INVALID_ARGUMENT)).toBe(true);
    expect(outcomes.some((o) => o.responses > 0)).toBe(true);

    await waitFor(() => server.streams().length === 0, {
      description: 'every fuzzed stream to be gone',
    });
    expect((await requestClustersOnce(server.xdsAddress)).resources).toHaveLength(2);
  },
);
