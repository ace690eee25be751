/**
 * The fuzz parts of scripts/reliability.ts, at full size: both ADS methods, the CA's
 * `CreateCertificate` (over TLS and on plaintext with `--plaintext-ca`) and the control API's
 * JSON bodies. Each part starts its own mock, checks every answer, then checks that no session
 * is left (`/debug/connections`) and that a well-formed client is still served. Returns the
 * number of inputs and of problems found.
 */
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import { waitFor } from '../../src/util/wait.js';
import { attackClient, attackContext, send } from '../../test/support/harness/ca-attack-run.js';
import { csrFor } from '../../test/support/harness/ca-attacks.js';
import { caFuzzSeeds, fuzzCa } from '../../test/support/harness/fuzz-ca.js';
import { fuzzControl, listenerCount } from '../../test/support/harness/fuzz-control.js';
import { fuzzCase } from '../../test/support/harness/fuzz-inputs.js';
import { requestClustersOnce } from '../../test/support/fixtures/handshake.js';
import { RawAdsClient, seededRandom } from '../../test/support/fixtures/raw-ads.js';

export interface PartResult {
  part: string;
  inputs: number;
  problems: number;
}

const quiet = () => pino({ level: 'silent' });
/** Cases as fast as they go: istiod's connection rate limit would only refuse them. */
const NO_RATE_LIMIT = { maxStreamsPerSecond: 0 };
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
const controlBase = (istiod: TestMockIstiod) =>
  `http://127.0.0.1:${istiod.addresses.control?.port}`;

/** `/debug/connections`' count of clients, which must come back to 0. */
async function connectedClients(istiod: TestMockIstiod): Promise<number> {
  const res = await fetch(`${controlBase(istiod)}/debug/connections`);
  return ((await res.json()) as { totalClients: number }).totalClients;
}

async function leftSessions(istiod: TestMockIstiod): Promise<string[]> {
  try {
    await waitFor(async () => (await connectedClients(istiod)) === 0, { timeoutMs: 30_000 });
    return [];
  } catch {
    return [`${await connectedClients(istiod)} sessions left in /debug/connections`];
  }
}

function print(part: string, line: string, problems: unknown[]): void {
  console.log(`${part}: ${line}`);
  for (const p of problems.slice(0, 20)) console.log(`  PROBLEM ${JSON.stringify(p)}`);
}

/** A stream may be answered, refused precisely, or left waiting (then the client cancels). */
const ADS_ALLOWED = new Set([
  grpc.status.CANCELLED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.RESOURCE_EXHAUSTED,
]);

export async function fuzzAdsPart(cases: number, seed: number): Promise<PartResult> {
  const istiod = await startMockIstiod({ journalSize: 1000, logger: quiet(), ...NO_RATE_LIMIT });
  const raw = new RawAdsClient(istiod.xdsAddress);
  const rand = seededRandom(seed);
  const counts: Record<string, number> = {};
  const problems: unknown[] = [];
  const started = Date.now();
  try {
    for (let done = 0; done < cases; done += 10) {
      const batch = Array.from({ length: Math.min(10, cases - done) }, () => fuzzCase(rand));
      const outcomes = await Promise.all(batch.map((c) => raw.run(c.method, c.messages)));
      for (const [i, o] of outcomes.entries()) {
        const key = o.responses > 0 ? 'answered' : grpc.status[o.code];
        counts[key] = (counts[key] ?? 0) + 1;
        if (o.responses === 0 && !ADS_ALLOWED.has(o.code)) {
          problems.push({ case: done + i, code: grpc.status[o.code], details: o.details });
        }
      }
    }
    raw.close();
    problems.push(...(await leftSessions(istiod)));
    const served = (await requestClustersOnce(istiod.xdsAddress)).resources.length;
    if (served !== 2) problems.push(`a well-formed client got ${served} clusters, not 2`);
  } finally {
    raw.close();
    await istiod.close();
  }
  const line = `${cases} streams, seed ${seed}, ${seconds(started)} s: ${JSON.stringify(counts)}`;
  print('ads-fuzz', line, problems);
  return { part: 'ads-fuzz', inputs: cases, problems: problems.length };
}

export async function fuzzCaPart(cases: number, seed: number): Promise<PartResult> {
  let inputs = 0;
  let problems = 0;
  const transports = [
    { name: 'TLS', options: { tls: true } },
    { name: 'plaintext with --plaintext-ca', options: { ca: { plaintext: true } } },
  ] as const;
  for (const [n, { name, options }] of transports.entries()) {
    const istiod = await startMockIstiod({ logger: quiet(), ...NO_RATE_LIMIT, ...options });
    const client = attackClient(istiod);
    const ctx = attackContext(istiod);
    const started = Date.now();
    try {
      const seeds = await caFuzzSeeds(() => ctx.mint());
      const share = Math.ceil(cases / transports.length);
      const report = await fuzzCa(client, seeds, seededRandom(seed + n), share);
      const after: string[] = await leftSessions(istiod);
      const good = await send(client, {
        csr: await csrFor(),
        authorization: `Bearer ${ctx.mint()}`,
      });
      if (!good.ok) after.push(`a good caller was refused afterwards: ${JSON.stringify(good)}`);
      const line = `${report.tried} requests ${name}, seed ${seed + n}, ${seconds(started)} s: ${JSON.stringify(report.byAnswer)}`;
      print('ca-fuzz', line, [...report.failures, ...after]);
      inputs += report.tried;
      problems += report.failures.length + after.length;
    } finally {
      client.close();
      await istiod.close();
    }
  }
  return { part: 'ca-fuzz', inputs, problems };
}

export async function fuzzControlPart(cases: number, seed: number): Promise<PartResult> {
  const istiod = await startMockIstiod({ logger: quiet(), ...NO_RATE_LIMIT });
  const started = Date.now();
  try {
    const report = await fuzzControl(
      controlBase(istiod),
      istiod.xdsAddress,
      seededRandom(seed),
      cases,
      Number.POSITIVE_INFINITY,
      listenerCount(istiod),
    );
    const after = await leftSessions(istiod);
    const line = `${report.tried} bodies, seed ${seed}, ${seconds(started)} s: ${JSON.stringify(report.byStatus)}`;
    print('control-fuzz', line, [...report.failures, ...after]);
    return {
      part: 'control-fuzz',
      inputs: report.tried,
      problems: report.failures.length + after.length,
    };
  } finally {
    await istiod.close();
  }
}
