/**
 * The reliability figures of docs/RELIABILITY.md, at full size: a seeded fuzz of both ADS
 * methods and 10,000 connect/disconnect cycles with the heap measured before and after.
 *
 *   npx tsx scripts/reliability.ts [--cases 5000] [--cycles 10000] [--seed 20261130]
 *     [--soak-minutes 10 (0: no soak)] [--soak-tls] [--storm 20000 (0: no storm)] [--storm-workers 4]
 *     [--storm-timeout-ms 120000]
 */
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { startMockIstiod } from '../src/testing/start.js';
import { waitFor } from '../src/util/wait.js';
import { churn, settledHeap } from '../test/support/churn.js';
import { fuzzCase } from '../test/support/fuzz-inputs.js';
import { RawAdsClient, seededRandom } from '../test/support/raw-ads.js';
import { soakRun } from './reliability/soak.js';
import { stormRun } from './reliability/storm.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '5000' },
    cycles: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '20261130' },
    'soak-minutes': { type: 'string', default: '10' },
    'soak-tls': { type: 'boolean', default: false },
    storm: { type: 'string', default: '20000' },
    'storm-workers': { type: 'string', default: '4' },
    'storm-timeout-ms': { type: 'string', default: '120000' },
  },
});
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function fuzz(cases: number, seed: number): Promise<void> {
  const server = await startMockIstiod({ journalSize: 1000 });
  const raw = new RawAdsClient(server.xdsAddress);
  const rand = seededRandom(seed);
  const counts = new Map<string, number>();
  const started = Date.now();
  for (let done = 0; done < cases; done += 10) {
    const batch = Array.from({ length: 10 }, () => fuzzCase(rand));
    for (const o of await Promise.all(batch.map((c) => raw.run(c.method, c.messages)))) {
      const key = o.responses > 0 ? 'answered' : grpc.status[o.code];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  raw.close();
  await waitFor(() => server.streams().length === 0, { timeoutMs: 30_000 });
  await server.close();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `fuzz: ${cases} cases, seed ${seed}, ${seconds} s: ${JSON.stringify(Object.fromEntries(counts))}`,
  );
}

async function churnRun(cycles: number): Promise<void> {
  const server = await startMockIstiod({ journalSize: 1000 });
  await churn(server.xdsAddress, 100);
  await waitFor(() => server.streams().length === 0);
  const before = settledHeap();
  const started = Date.now();
  await churn(server.xdsAddress, cycles);
  await waitFor(() => server.streams().length === 0, { timeoutMs: 30_000 });
  const after = settledHeap();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `churn: ${cycles} cycles in ${seconds} s, sessions left ${server.streams().length}, ` +
      `heap before ${mib(before)}, after ${mib(after)} (${mib(after - before)} growth)`,
  );
  await server.close();
}

await fuzz(Number(values.cases), Number(values.seed));
await churnRun(Number(values.cycles));
if (Number(values['soak-minutes']) > 0) {
  await soakRun(Number(values['soak-minutes']), values['soak-tls']);
}
if (Number(values.storm) > 0) {
  await stormRun(
    Number(values.storm),
    Number(values['storm-workers']),
    Number(values['storm-timeout-ms']),
  );
}
