/**
 * Churn: many connect/disconnect cycles leave no session behind — istiod's
 * `/debug/connections` counts back to zero — and the heap returns to its baseline.
 * The suite runs 1,000 cycles; scripts/reliability.ts runs 10,000 (docs/RELIABILITY.md).
 */
import { expect } from 'vitest';
import { waitFor } from '../../src/util/wait.js';
import { it } from '../support/fixtures/test.js';
import { churn, settledHeap } from '../support/harness/churn.js';

const CYCLES = 1_000;
/** Allowed heap growth after the churn, once collected (client and server share this heap). */
const TOLERANCE_BYTES = 8 * 1024 * 1024;

it(
  `leaves no session and no heap behind after ${CYCLES} connect/disconnect cycles`,
  { timeout: 90_000 },
  async ({ startMock }) => {
    // Cycles back to back, faster than istiod's connection rate limit lets streams in: off.
    const server = await startMock({ journalSize: 100, maxStreamsPerSecond: 0 });
    await churn(server.xdsAddress, 50); // warm-up: load protos, JIT, pools
    const connections = `http://127.0.0.1:${server.addresses.control?.port}/debug/connections`;
    await waitFor(() => server.streams().length === 0);
    const baseline = settledHeap();

    await churn(server.xdsAddress, CYCLES);
    await waitFor(() => server.streams().length === 0, { description: 'every stream to be gone' });
    const debug = (await (await fetch(connections)).json()) as { totalClients: number };
    expect(debug.totalClients).toBe(0);
    expect(server.journal.query({ kind: 'open' }).length).toBeLessThanOrEqual(100);
    const growth = settledHeap() - baseline;
    expect(growth).toBeLessThan(TOLERANCE_BYTES);
  },
);
