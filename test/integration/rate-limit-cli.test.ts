/**
 * istiod's connection rate limit as `mock-istiod serve` takes it: from istiod's own variable,
 * PILOT_MAX_REQUESTS_PER_SECOND, read as istiod reads it, and from `--max-streams-per-second`,
 * which wins and whose 0 turns the limit off. Each runs the real process on a free port.
 */
import * as grpc from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import { RATE_LIMIT_MESSAGE } from '../../src/server/stream-rate-limit.js';
import { AdsTestClient, type StreamEnd } from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { FREE_SERVE_PORTS, JSON_LOGS, useCli, waitForServing } from '../support/fixtures/cli.js';
import { it } from '../support/fixtures/test.js';

const cli = useCli();
const NODE = { id: 'sidecar~10.0.0.1~rate.default~default.svc.cluster.local' };

/** Four streams at once, each asking for clusters: what each ended with, or `answered`. */
async function burst(xds: string): Promise<(StreamEnd | 'answered')[]> {
  const client = new AdsTestClient(xds);
  try {
    const streams = Array.from({ length: 4 }, () => client.sotw());
    for (const s of streams) s.send({ node: NODE, type_url: CLUSTER_TYPE });
    return await Promise.all(
      streams.map((s) =>
        Promise.race([
          s.next(3_000).then(() => 'answered' as const),
          s.done.then((end) => ({ code: end.code, details: end.details })),
        ]),
      ),
    );
  } finally {
    client.close();
  }
}

async function serve(args: string[], env: Record<string, string>): Promise<string> {
  const run = cli.start(['serve', ...FREE_SERVE_PORTS, ...JSON_LOGS, ...args], { podEnv: env });
  return (await waitForServing(run, 30_000)).xds;
}

const REFUSED = { code: grpc.status.RESOURCE_EXHAUSTED, details: RATE_LIMIT_MESSAGE };

describe('serve and the connection rate limit', () => {
  it('reads PILOT_MAX_REQUESTS_PER_SECOND as istiod does', { timeout: 40_000 }, async () => {
    const xds = await serve([], { PILOT_MAX_REQUESTS_PER_SECOND: '0.5' });
    expect(await burst(xds)).toEqual(['answered', REFUSED, REFUSED, REFUSED]);
  });

  it(
    'takes --max-streams-per-second 0 over the variable: no limit',
    { timeout: 40_000 },
    async () => {
      const xds = await serve(['--max-streams-per-second', '0'], {
        PILOT_MAX_REQUESTS_PER_SECOND: '0.5',
      });
      expect(await burst(xds)).toEqual(['answered', 'answered', 'answered', 'answered']);
    },
  );

  it('refuses a value that is not a rate, with one clear line', async () => {
    const run = await cli.run(['serve', ...FREE_SERVE_PORTS, '--max-streams-per-second', 'lots']);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'mock-istiod: --max-streams-per-second: expected a number of streams a second, 0 or more (0: no limit), got "lots"',
    );
  });
});
