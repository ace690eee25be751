/**
 * A real Go `net/http` client, as a Go user writes one (one `http.Client`, Go's default
 * transport, idle connections reused), against the control port: hundreds of requests (PUT
 * of the resources, which Go does not retry; GET of the state; push), some at once, some
 * after a pause just past Node's former 5 s keep-alive timeout, where a Go client used to see
 * `EOF`. Not one may fail, and the pauses must not have cost new connections: the server
 * keeps an idle connection longer than Go's 90 s.
 */
import { describe, expect } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/control/control-server.js';
import { buildGoClient, runGoClient } from '../support/harness/go-client.js';
import { it, test } from '../support/fixtures/test.js';

describe('a Go net/http client on the control port', () => {
  test.override({ mockOptions: { controlToken: 'go-token' } });

  it('makes 300 requests from one http.Client, with pauses around 5 s, and none fails', async ({
    mock,
  }) => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(90_000);
    const binary = await buildGoClient();
    const figures = await runGoClient(binary, {
      url: `http://127.0.0.1:${mock.addresses.control?.port}`,
      token: 'go-token',
      requests: 300,
      // Just past Node's old 5 s default, where the race was, and either side of it.
      pauses: ['4.9s', '5s', '5.05s', '5.1s', '5.5s', '6s'],
    });
    console.log(`Go client: ${JSON.stringify(figures)}`);
    expect(figures.errors).toEqual([]);
    expect(figures).toMatchObject({ requests: 300, failures: 0, pauses: 6 });
    // The first request opened the one connection; every pause reused it.
    expect(figures.newConnections).toBe(1);
    expect((await mock.control.getResources()).sets[0]?.version).toBe(figures.lastVersion);
  }, 90_000);
});
