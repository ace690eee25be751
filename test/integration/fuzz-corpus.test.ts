/**
 * Every input a fuzz run found a bug with, kept in test/fixtures/fuzz-corpus/ and replayed
 * against a running mock: each must now get the answer the file expects, and the mock must
 * keep serving afterwards.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { expect } from 'vitest';
import { attackClient, attackContext, send } from '../support/harness/ca-attack-run.js';
import { csrFor, type AttackRequest } from '../support/harness/ca-attacks.js';
import { sendControl } from '../support/harness/fuzz-control.js';
import { requestClustersOnce } from '../support/fixtures/handshake.js';
import { it } from '../support/fixtures/test.js';

const DIR = 'test/fixtures/fuzz-corpus';

type Entry =
  | {
      found: string;
      surface: 'ca';
      request: AttackRequest;
      expect: { code: keyof typeof grpc.status; details: string; reason?: string };
    }
  | {
      found: string;
      surface: 'control';
      request: { method: string; path: string; body: string };
      expect: { status: number; error: string };
    };

const entries = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Entry] as const);

it('has a corpus', () => {
  expect(entries.length).toBeGreaterThan(0);
});

it.for(entries)('%s gets the answer it expects', async ([, entry], { startMock }) => {
  if (entry.surface === 'ca') {
    const istiod = await startMock({ tls: true, logger: pino({ level: 'silent' }) });
    const client = attackClient(istiod);
    try {
      const answer = await send(client, entry.request);
      expect(answer).toEqual({
        ok: false,
        code: grpc.status[entry.expect.code],
        details: entry.expect.details,
        reason: entry.expect.reason,
      });
      // The CA still signs for a good caller.
      const good = { csr: await csrFor(), authorization: `Bearer ${attackContext(istiod).mint()}` };
      expect(await send(client, good)).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
  } else {
    const istiod = await startMock({ logger: pino({ level: 'silent' }) });
    const base = `http://127.0.0.1:${istiod.addresses.control?.port}`;
    const { method, path, body } = entry.request;
    const answer = await sendControl(base, { method, path, body: Buffer.from(body) });
    expect(answer.status).toBe(entry.expect.status);
    expect((JSON.parse(answer.text) as { error: string }).error).toBe(entry.expect.error);
    expect((await requestClustersOnce(istiod.xdsAddress)).resources).toHaveLength(2);
  }
});
