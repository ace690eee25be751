/**
 * The reliability figures of docs/RELIABILITY.md, at full size: a seeded fuzz of both ADS
 * methods and 10,000 connect/disconnect cycles with the heap measured before and after, and
 * the parts in scripts/reliability/ (`--only <part>[,<part>…]` runs some of them).
 *
 *   npx tsx scripts/reliability.ts [--cases 5000] [--cycles 10000] [--seed 20261130]
 *   npx tsx scripts/reliability.ts --only ads-fuzz,ca-fuzz,control-fuzz,ca-attacks \
 *     [--ads-cases 20000] [--ca-cases 30000] [--control-cases 60000] [--attack-rounds 20]
 *   npx tsx scripts/reliability.ts --only concurrent,files,own-faults
 *   npx tsx scripts/reliability.ts --only soak,storm [--soak-minutes 10] [--soak-tls]
 *     [--storm 20000] [--storm-workers 4] [--storm-timeout-ms 120000]
 */
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { startMockIstiod } from '../src/testing/start.js';
import { waitFor } from '../src/util/wait.js';
import { churn, settledHeap } from '../test/support/harness/churn.js';
import { fuzzCase } from '../test/support/harness/fuzz-inputs.js';
import { RawAdsClient, seededRandom } from '../test/support/fixtures/raw-ads.js';
import { fuzzAdsPart, fuzzCaPart, fuzzControlPart, type PartResult } from './reliability/fuzz.js';
import { caAttacksPart } from './reliability/ca-attacks.js';
import { concurrentRun } from './reliability/concurrent.js';
import { ownFaultsRun } from './reliability/own-faults.js';
import { filesRun } from './reliability/files.js';
import { soakRun } from './reliability/soak.js';
import { stormRun } from './reliability/storm.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '5000' },
    cycles: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '20261130' },
    only: { type: 'string' },
    // rel-fuzz: fuzz at scale, the CA under attack (scripts/reliability/fuzz.ts, ca-attacks.ts)
    'ads-cases': { type: 'string', default: '20000' },
    'ca-cases': { type: 'string', default: '30000' },
    'control-cases': { type: 'string', default: '60000' },
    'attack-rounds': { type: 'string', default: '20' },
    // rel-soak: the soak and connection storms (scripts/reliability/soak.ts, storm.ts)
    'soak-minutes': { type: 'string', default: '10' },
    'soak-tls': { type: 'boolean', default: false },
    storm: { type: 'string', default: '20000' },
    'storm-workers': { type: 'string', default: '4' },
    'storm-timeout-ms': { type: 'string', default: '120000' },
  },
});
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function fuzz(cases: number, seed: number): Promise<void> {
  // Streams back to back or all at once: istiod's connection rate limit is off here.
  const server = await startMockIstiod({ journalSize: 1000, maxStreamsPerSecond: 0 });
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
  // Streams back to back or all at once: istiod's connection rate limit is off here.
  const server = await startMockIstiod({ journalSize: 1000, maxStreamsPerSecond: 0 });
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

const seed = Number(values.seed);
const problemIf = (bad: boolean) => ({ problems: bad ? 1 : 0 });
const parts: Record<string, () => Promise<Pick<PartResult, 'problems'> | void>> = {
  fuzz: () => fuzz(Number(values.cases), seed),
  churn: () => churnRun(Number(values.cycles)),
  'ads-fuzz': () => fuzzAdsPart(Number(values['ads-cases']), seed),
  'ca-fuzz': () => fuzzCaPart(Number(values['ca-cases']), seed),
  'control-fuzz': () => fuzzControlPart(Number(values['control-cases']), seed),
  'ca-attacks': () => caAttacksPart(Number(values['attack-rounds'])),
  // Issue 16, items 3-5: each run returns false when it found a problem.
  concurrent: async () => problemIf(!(await concurrentRun(50, 100, 20261201))),
  files: async () => problemIf(!(await filesRun(200, 20261201))),
  'own-faults': async () => problemIf(!(await ownFaultsRun(10, 1000))),
  // Issue 16, items 6-7.
  soak: () => soakRun(Number(values['soak-minutes']), values['soak-tls']),
  storm: () =>
    stormRun(
      Number(values.storm),
      Number(values['storm-workers']),
      Number(values['storm-timeout-ms']),
    ),
};
const chosen = values.only?.split(',') ?? ['fuzz', 'churn'];
const unknown = chosen.filter((name) => !(name in parts));
if (unknown.length > 0) {
  console.error(`unknown part ${unknown.join(', ')}; parts: ${Object.keys(parts).join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of chosen) {
  const result = await parts[name]?.();
  if (result) failed += result.problems;
}
process.exitCode = failed > 0 ? 1 : 0;
