/**
 * The CA and its tokens under attack, at full size: every row of
 * test/support/harness/ca-attacks.ts, `rounds` times, against `CreateCertificate` over TLS and on
 * plaintext with `--plaintext-ca`, and every token row against xDS streams on the TLS port.
 * Each answer must be istiod's and move the counters it should; nothing may be signed for
 * another identity. Returns the number of attacks and of problems.
 */
import pino from 'pino';
import { startMockIstiod } from '../../src/testing/start.js';
import { CSR_ATTACKS, TOKEN_ATTACKS } from '../../test/support/harness/ca-attacks.js';
import {
  attackClient,
  attackContext,
  checkCaAttack,
  checkXdsTokenAttack,
} from '../../test/support/harness/ca-attack-run.js';
import type { PartResult } from './fuzz.js';

export async function caAttacksPart(rounds: number): Promise<PartResult> {
  const started = Date.now();
  const problems: string[] = [];
  const tally = new Map<string, number>();
  let attacks = 0;
  const transports = [
    { name: 'TLS', options: { tls: true } },
    { name: 'plaintext-ca', options: { ca: { plaintext: true } } },
  ] as const;
  for (const { name, options } of transports) {
    const istiod = await startMockIstiod({
      control: false,
      logger: pino({ level: 'silent' }),
      ...options,
    });
    const client = attackClient(istiod);
    const ctx = attackContext(istiod);
    const rows = [...TOKEN_ATTACKS, ...CSR_ATTACKS].filter((a) => !a.needsKey || ctx.jwtKey);
    try {
      for (let round = 0; round < rounds; round++) {
        for (const attack of rows) {
          const problem = await checkCaAttack(istiod, client, attack, ctx);
          attacks += 1;
          tally.set(`CreateCertificate ${name}`, (tally.get(`CreateCertificate ${name}`) ?? 0) + 1);
          if (problem) problems.push(`${name}: ${attack.name}: ${problem}`);
        }
        if (name !== 'TLS') continue;
        for (const attack of TOKEN_ATTACKS) {
          const problem = await checkXdsTokenAttack(istiod, attack, ctx);
          attacks += 1;
          tally.set('xDS on TLS', (tally.get('xDS on TLS') ?? 0) + 1);
          if (problem) problems.push(`xDS: ${attack.name}: ${problem}`);
        }
      }
      if (istiod.streams().length > 0)
        problems.push(`${name}: ${istiod.streams().length} streams left`);
    } finally {
      client.close();
      await istiod.close();
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const classes = TOKEN_ATTACKS.length + CSR_ATTACKS.length;
  console.log(
    `ca-attacks: ${classes} classes x ${rounds} rounds = ${attacks} attacks in ${seconds} s: ${JSON.stringify(Object.fromEntries(tally))}`,
  );
  for (const p of problems.slice(0, 20)) console.log(`  PROBLEM ${p}`);
  return { part: 'ca-attacks', inputs: attacks, problems: problems.length };
}
