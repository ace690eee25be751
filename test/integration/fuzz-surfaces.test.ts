/**
 * The seeded fuzz of the CA's CreateCertificate (over TLS and on plaintext with
 * `ca.plaintext`) and of the control API's JSON bodies, small: every answer is istiod's (or,
 * for the control API, a 2xx or a precise 4xx with field paths), and the mock keeps serving
 * what it last accepted. MOCK_ISTIOD_FUZZ_SEED and MOCK_ISTIOD_FUZZ_CASES change the run
 * (docs/RELIABILITY.md); scripts/reliability.ts runs the same code big.
 */
import pino from 'pino';
import { describe, expect } from 'vitest';
import { attackClient, attackContext, send } from '../support/harness/ca-attack-run.js';
import { csrFor } from '../support/harness/ca-attacks.js';
import { caFuzzSeeds, fuzzCa } from '../support/harness/fuzz-ca.js';
import { fuzzControl, listenerCount } from '../support/harness/fuzz-control.js';
import { seededRandom } from '../support/fixtures/raw-ads.js';
import { it } from '../support/fixtures/test.js';

const SEED = Number(process.env.MOCK_ISTIOD_FUZZ_SEED ?? 20261201);
const CASES = Number(process.env.MOCK_ISTIOD_FUZZ_CASES ?? 300);
const BUDGET_MS = 20_000;

describe.each([
  { name: 'over TLS', options: { tls: true } },
  { name: 'on plaintext with --plaintext-ca', options: { ca: { plaintext: true } } },
])('CreateCertificate fuzz $name', ({ options }) => {
  it(
    `answers ${CASES} seeded requests (seed ${SEED}) as istiod`,
    { timeout: 60_000 },
    async ({ startMock }) => {
      const istiod = await startMock({
        control: false,
        logger: pino({ level: 'silent' }),
        ...options,
      });
      const client = attackClient(istiod);
      const ctx = attackContext(istiod);
      try {
        const seeds = await caFuzzSeeds(() => ctx.mint());
        const report = await fuzzCa(
          client,
          seeds,
          seededRandom(SEED),
          CASES,
          Date.now() + BUDGET_MS,
        );
        expect(report.failures).toEqual([]);
        expect(report.tried).toBeGreaterThanOrEqual(Math.min(CASES, 100));
        // Both kinds of answer happened: certificates for good callers, refusals for the rest.
        expect(report.byAnswer['signed']).toBeGreaterThan(0);
        expect(report.byAnswer['UNAUTHENTICATED request authenticate failure']).toBeGreaterThan(0);
        const good = { csr: await csrFor(), authorization: `Bearer ${ctx.mint()}` };
        expect(await send(client, good)).toMatchObject({ ok: true });
      } finally {
        client.close();
      }
    },
  );
});

it(
  `the control API answers ${CASES} seeded bodies (seed ${SEED}) with 2xx or a precise 4xx`,
  { timeout: 60_000 },
  async ({ startMock }) => {
    const istiod = await startMock({ logger: pino({ level: 'silent' }) });
    const base = `http://127.0.0.1:${istiod.addresses.control?.port}`;
    const rand = seededRandom(SEED);
    const deadline = Date.now() + BUDGET_MS;
    const listeners = listenerCount(istiod);
    const report = await fuzzControl(base, istiod.xdsAddress, rand, CASES, deadline, listeners);
    expect(report.failures).toEqual([]);
    expect(report.tried).toBeGreaterThanOrEqual(Math.min(CASES, 100));
    expect(report.byStatus['400']).toBeGreaterThan(0);
    expect(report.byStatus['200']).toBeGreaterThan(0);
    expect(report.byStatus['500']).toBeUndefined();
  },
);
