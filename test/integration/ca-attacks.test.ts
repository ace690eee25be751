/**
 * The CA and its tokens under attack, one row per class (test/support/harness/ca-attacks.ts): every
 * forged, stale, misaddressed or malformed token and every CSR that asks for too much is
 * refused with istiod's status and message, nothing is signed for another identity, and each
 * answer moves istiod's `citadel_server_*` counters; on TLS the same tokens are refused on
 * xDS streams too. Over TLS (as istiod's 15012) and on plaintext with `ca.plaintext`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { CaClient } from '../../src/ca/ca-proto.js';
import { startMockIstiod, type TestMockIstiod } from '../../src/testing/start.js';
import type { AttackContext } from '../support/harness/ca-attacks.js';
import { CSR_ATTACKS, TOKEN_ATTACKS } from '../support/harness/ca-attacks.js';
import {
  attackClient,
  attackContext,
  checkCaAttack,
  checkXdsTokenAttack,
} from '../support/harness/ca-attack-run.js';

const TRANSPORTS = [
  { name: 'over TLS', options: { tls: true } },
  { name: 'on plaintext with --plaintext-ca', options: { ca: { plaintext: true } } },
] as const;

describe.each(TRANSPORTS)('CreateCertificate $name', ({ options }) => {
  let istiod: TestMockIstiod;
  let client: CaClient;
  let ctx: AttackContext;
  beforeAll(async () => {
    istiod = await startMockIstiod({
      control: false,
      logger: pino({ level: 'silent' }),
      ...options,
    });
    client = attackClient(istiod);
    ctx = attackContext(istiod);
  });
  afterAll(async () => {
    client?.close();
    await istiod?.close();
  });

  const rows = [...TOKEN_ATTACKS, ...CSR_ATTACKS].filter((a) => !a.needsKey || 'tls' in options);
  it.each(rows.map((a) => [a.name, a] as const))('%s', { timeout: 30_000 }, async (_, attack) => {
    expect(await checkCaAttack(istiod, client, attack, ctx)).toBe('');
  });
});

describe('xDS streams on the TLS port', () => {
  let istiod: TestMockIstiod;
  let ctx: AttackContext;
  beforeAll(async () => {
    istiod = await startMockIstiod({
      tls: true,
      control: false,
      logger: pino({ level: 'silent' }),
    });
    ctx = attackContext(istiod);
  });
  afterAll(async () => {
    await istiod?.close();
  });

  it.each(TOKEN_ATTACKS.map((a) => [a.name, a] as const))(
    'refuse %s',
    { timeout: 30_000 },
    async (_, attack) => {
      expect(await checkXdsTokenAttack(istiod, attack, ctx)).toBe('');
      expect(istiod.streams()).toEqual([]);
    },
  );
});
